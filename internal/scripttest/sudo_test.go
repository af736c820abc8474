package scripttest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestSweepSudoersRemovesOnlyDeadOwners: a test drop-in whose owner's pid
// has no process is removed; one whose owner lives, and any name not of
// the test drop-ins' form, stays.
func TestSweepSudoersRemovesOnlyDeadOwners(t *testing.T) {
	dead, live := deadAndLive(t)
	dir := t.TempDir()
	names := map[string]bool{ // name: kept
		"zaptest-sshd-" + dead + "-123":   false,
		"zap-writetest-" + dead + "-9":    false,
		"zaptest-script-" + live + "-456": true,
		"zaptest-sshd-123456789":          true, // the old form: no owner to tell
		"zaptest-sshd-" + dead:            true, // no dash after the pid
		"zaptest-sshd-0" + dead + "-1":    true, // not a pid's spelling
		"zaptest":                         true,
		"deploy-" + dead + "-1":           true,
	}
	for n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o440); err != nil {
			t.Fatal(err)
		}
	}
	sweepSudoers(dir)
	for n, kept := range names {
		_, err := os.Lstat(filepath.Join(dir, n))
		if there := err == nil; there != kept {
			t.Errorf("%s: there after the sweep %v, want %v", n, there, kept)
		}
	}
}

// deadAndLive are a PID whose process has exited (a child reaped) and
// this process's, spelled as the test names spell them.
func deadAndLive(t *testing.T) (string, string) {
	t.Helper()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	return strconv.Itoa(gone.Process.Pid), strconv.Itoa(os.Getpid())
}
