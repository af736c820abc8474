package scripttest

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
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
//	              Nothing of an existing account is ever touched.
func cmdAccount(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: account VAR")
	}
	if os.Geteuid() != 0 {
		ts.Fatalf("account: needs root; guard the script with [!root] skip")
	}
	// The name is the test binary's PID and a count of its own, so no
	// other process running now picks it; a name a killed run left an
	// account, home or drop-in under is passed over.
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
		if exec.Command("id", "-u", name).Run() == nil {
			if out, err := exec.Command("userdel", "-f", "-r", name).CombinedOutput(); err != nil {
				ts.Logf("userdel -f -r %s: %v: %s", name, err, out)
			}
		}
		os.RemoveAll("/home/" + name)
		os.Remove("/etc/sudoers.d/" + name)
	})
}

// accounts counts the names cmdAccount has handed out.
var accounts atomic.Int64

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
