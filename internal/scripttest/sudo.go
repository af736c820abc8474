package scripttest

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdSudoers is the sudoers command:
//
//	sudoers allow   give zaptest NOPASSWD sudo with a drop-in of the
//	                script's own in /etc/sudoers.d, removed at the script's
//	                end (sets SUDOERS_DROPIN to its path)
//
// Other scripts running at the same time may grant the same (sshd start
// does), so a script can rely on the rule being there, never on its
// absence.
func cmdSudoers(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 || args[0] != "allow" {
		ts.Fatalf("usage: sudoers allow")
	}
	if os.Geteuid() != 0 {
		ts.Fatalf("sudoers: needs root; guard the script with [!root] skip")
	}
	ts.Check(addTestAccount())
	name, err := SudoersDropIn("zaptest-script-")
	ts.Check(err)
	ts.Defer(func() { os.Remove(name) })
	ts.Setenv("SUDOERS_DROPIN", name)
}

// SudoersDropIn gives TestAccount NOPASSWD sudo by a drop-in in
// /etc/sudoers.d named prefix, this process's pid, a dash and random digits
// (no dot: sudo skips a name with one), made new, so no other process's
// drop-in is ever written or removed; it returns its path, for the caller
// to remove. A test killed before its cleanup can't remove its own: the
// first drop-in a process makes first removes those of the prefixes
// scripttest and writetest use whose process is gone (sweepSudoers).
func SudoersDropIn(prefix string) (string, error) {
	sweepOnce.Do(func() { sweepSudoers(sudoersDir) })
	f, err := os.CreateTemp(sudoersDir, prefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return "", err
	}
	_, err = f.WriteString(TestAccount + " ALL=(ALL) NOPASSWD: ALL\n")
	if err == nil {
		err = f.Chmod(0o440)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

const sudoersDir = "/etc/sudoers.d"

// sudoersPrefixes are the names the test drop-ins take, each followed by
// the owner's pid and a dash.
var sudoersPrefixes = []string{"zaptest-script-", "zaptest-sshd-", "zap-writetest-"}

var sweepOnce sync.Once

// sweepSudoers removes from dir the test drop-ins whose owner is gone: a
// name of one of sudoersPrefixes, a pid and a dash, where no process has
// that pid. A live process of that pid (the owner, or another that reuses
// its number) keeps it; a name in any other form is left alone.
func sweepSudoers(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if pid, ok := dropInOwner(e.Name()); ok && !alive(pid) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// dropInOwner is the pid in a test drop-in's name.
func dropInOwner(name string) (int, bool) {
	for _, p := range sudoersPrefixes {
		rest, ok := strings.CutPrefix(name, p)
		if !ok {
			continue
		}
		digits, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(digits)
		if !ok || err != nil || pid <= 0 || strconv.Itoa(pid) != digits {
			return 0, false
		}
		return pid, true
	}
	return 0, false
}

// alive reports whether a process with pid exists (signal 0 is delivered
// or refused for want of permission).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// cmdRootDir is the rootdir command:
//
//	rootdir   make a directory of root's outside $WORK (which runas hands to
//	          zaptest), mode 755, removed at the script's end, and set
//	          ROOTDIR to it; what the script puts there stays root's
func cmdRootDir(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: rootdir")
	}
	if os.Geteuid() != 0 {
		ts.Fatalf("rootdir: needs root; guard the script with [!root] skip")
	}
	dir, err := os.MkdirTemp("", "zap-rootdir-")
	ts.Check(err)
	ts.Defer(func() { os.RemoveAll(dir) })
	ts.Check(os.Chmod(dir, 0o755))
	// zaptest must reach it: every directory above gets search permission
	// for others, as runas does for $WORK.
	for d := filepath.Dir(dir); d != "/" && d != "."; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil && fi.Mode().Perm()&0o001 == 0 {
			ts.Check(os.Chmod(d, fi.Mode().Perm()|0o001))
		}
	}
	ts.Setenv("ROOTDIR", dir)
}

// cmdNosudo is the nosudo command: see the package documentation.
func cmdNosudo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: nosudo")
	}
	dir := ts.MkAbs("nosudo-bin")
	ts.Check(os.MkdirAll(dir, 0o755))
	script := "#!/bin/sh\necho 'sudo: a password is required' >&2\nexit 1\n"
	ts.Check(os.WriteFile(filepath.Join(dir, "sudo"), []byte(script), 0o755))
	ts.Setenv("PATH", dir+string(filepath.ListSeparator)+ts.Getenv("PATH"))
}
