package scripttest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"syscall"
)

// runDir holds what the harness shares with every other test binary on the
// machine: the claims on the /30s of `netns start` and the lock the test
// account is made under ($ZAP_TEST_RUN, else /run/zap-test).
func runDir() string {
	if d := os.Getenv("ZAP_TEST_RUN"); d != "" {
		return d
	}
	return "/run/zap-test"
}

// lockRun takes an exclusive flock on runDir/name, waiting for it; the
// returned function releases it.
func lockRun(name string) (func(), error) {
	if err := os.MkdirAll(runDir(), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(runDir(), name), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("flock %s: %w", f.Name(), err)
	}
	return func() { f.Close() }, nil
}

// addTestAccount makes TestAccount (a system account, no home) unless it
// exists. Test binaries starting at once on a fresh machine each find it
// missing, and two useradds of one name don't exclude each other: each
// checks for the name before taking /etc/passwd's lock, both exit 0, and
// the second rewrites the entry the first made with another uid, after
// the first test binary read the first one. So the account is made under
// an flock every test binary takes, and looked for again once it is held.
func addTestAccount() error {
	if _, err := user.Lookup(TestAccount); err == nil {
		return nil
	}
	unlock, err := lockRun("account.lock")
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := user.Lookup(TestAccount); err == nil {
		return nil
	} else if !errors.As(err, new(user.UnknownUserError)) {
		return err
	}
	if out, err := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/bin/sh", TestAccount).CombinedOutput(); err != nil {
		return fmt.Errorf("useradd %s: %v: %s", TestAccount, err, out)
	}
	return nil
}
