package scripttest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdAccount is the account command:
//
//	account VAR   set $VAR to a fresh account name (zapu, the test
//	              binary's PID and a count) no account has, for a script
//	              that makes the account (a user resource); at the
//	              script's end the account is removed (userdel -f -r) if
//	              it exists, and so are /home/NAME and /etc/sudoers.d/NAME.
//	              Nothing of an existing account is ever touched, but for
//	              the names of this form whose process is gone: a killed
//	              run's, removed the same way before the first account a
//	              process makes.
func cmdAccount(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: account VAR")
	}
	if os.Geteuid() != 0 {
		ts.Fatalf("account: needs root; guard the script with [!root] skip")
	}
	// The name is the test binary's PID and a count of its own, so no
	// other process running now picks it; a name a killed run left an
	// account, home or drop-in under is passed over, and the first
	// account a process makes first removes those whose process is gone
	// (sweepAccounts).
	sweepAccountsOnce.Do(func() { sweepAccounts(accountPlaces{}) })
	var name string
	for range 20 {
		name = fmt.Sprintf("zapu%d%04d", os.Getpid(), accounts.Add(1)%10000)
		if exec.Command("id", "-u", name).Run() != nil && !exists("/home/"+name) && !exists("/etc/sudoers.d/"+name) {
			break
		}
		name = ""
	}
	if !regexp.MustCompile(`^zapu[0-9]+$`).MatchString(name) {
		ts.Fatalf("account: no free name")
	}
	ts.Setenv(args[0], name)
	ts.Defer(func() {
		if err := (accountPlaces{}).remove(name); err != nil {
			ts.Logf("%v", err)
		}
	})
}

// accounts counts the names cmdAccount has handed out.
var accounts atomic.Int64

var sweepAccountsOnce sync.Once

// accountPlaces are where an account of cmdAccount's leaves something:
// the password file, /home and /etc/sudoers.d (the zero value), or a
// test's stand-ins for them, whose account removal is the func given.
type accountPlaces struct {
	passwd, home, sudoers string
	userdel               func(name string) error
}

func (p accountPlaces) or() accountPlaces {
	if p.passwd == "" {
		p = accountPlaces{passwd: "/etc/passwd", home: "/home", sudoers: "/etc/sudoers.d", userdel: userdel}
	}
	return p
}

// remove removes the account name (when it exists), its home and its
// sudoers drop-in.
func (p accountPlaces) remove(name string) error {
	p = p.or()
	var err error
	if passwdNames(p.passwd)[name] {
		err = p.userdel(name)
	}
	os.RemoveAll(filepath.Join(p.home, name))
	os.Remove(filepath.Join(p.sudoers, name))
	return err
}

func userdel(name string) error {
	if out, err := exec.Command("userdel", "-f", "-r", name).CombinedOutput(); err != nil {
		return fmt.Errorf("userdel -f -r %s: %v: %s", name, err, out)
	}
	return nil
}

// sweepAccounts removes what a killed run's accounts left: each name of
// cmdAccount's form in the password file, /home or /etc/sudoers.d whose
// PID has no process. A live process of that PID (the owner, or another
// reusing its number) keeps it; a name of any other form is left alone.
func sweepAccounts(p accountPlaces) {
	p = p.or()
	names := passwdNames(p.passwd)
	for _, dir := range []string{p.home, p.sudoers} {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			names[e.Name()] = true
		}
	}
	for name := range names {
		if pid, ok := accountOwner(name); ok && !alive(pid) {
			p.remove(name)
		}
	}
}

// accountOwner is the PID in a name of cmdAccount's form: zapu, the PID
// (as Itoa spells it) and a count of four digits.
func accountOwner(name string) (int, bool) {
	digits, ok := strings.CutPrefix(name, "zapu")
	if !ok || len(digits) < 5 || strings.Trim(digits, "0123456789") != "" {
		return 0, false
	}
	pid, err := strconv.Atoi(digits[:len(digits)-4])
	if err != nil || pid <= 0 || strconv.Itoa(pid) != digits[:len(digits)-4] {
		return 0, false
	}
	return pid, true
}

// passwdNames is the set of account names the password file at passwd
// holds (none when it can't be read).
func passwdNames(passwd string) map[string]bool {
	names := map[string]bool{}
	if data, err := os.ReadFile(passwd); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			name, _, _ := strings.Cut(line, ":")
			names[name] = true
		}
	}
	return names
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
