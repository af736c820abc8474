package scripttest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestSweepAccountsRemovesOnlyDeadOwners: an account of the account
// command's form whose owner's PID has no process is removed, with its home
// and sudoers drop-in, and so are a home or drop-in left without their
// account; a live owner's, and any name of another form, stay.
func TestSweepAccountsRemovesOnlyDeadOwners(t *testing.T) {
	dead, live := deadAndLive(t)
	dir := t.TempDir()
	p := accountPlaces{passwd: filepath.Join(dir, "passwd"), home: filepath.Join(dir, "home"), sudoers: filepath.Join(dir, "sudoers.d")}
	var deleted []string
	p.userdel = func(name string) error { deleted = append(deleted, name); return nil }
	accounts := []string{"zapu" + dead + "0001", "zapu" + live + "0002", "zapu" + "0" + dead + "0003", "zapu" + dead, "zaptest", "zapux" + dead + "0004"}
	passwd := ""
	for _, a := range accounts {
		passwd += a + ":x:1000:1000::/home/" + a + ":/bin/sh\n"
	}
	orphan := "zapu" + dead + "0009" // a home and a drop-in, no account
	for _, d := range []string{p.home, p.sudoers} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, a := range append(slices.Clone(accounts), orphan) {
			if err := os.WriteFile(filepath.Join(d, a), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(p.passwd, []byte(passwd), 0o644); err != nil {
		t.Fatal(err)
	}
	sweepAccounts(p)
	if want := []string{"zapu" + dead + "0001"}; !slices.Equal(deleted, want) {
		t.Errorf("accounts removed: %q, want %q", deleted, want)
	}
	for _, a := range append(slices.Clone(accounts), orphan) {
		swept := a == "zapu"+dead+"0001" || a == orphan
		for _, d := range []string{p.home, p.sudoers} {
			_, err := os.Lstat(filepath.Join(d, a))
			if there := err == nil; there == swept {
				t.Errorf("%s: there after the sweep %v, want %v", filepath.Join(d, a), there, !swept)
			}
		}
	}
}

// TestAccountOwner reads the PID out of the account command's names only.
func TestAccountOwner(t *testing.T) {
	for name, want := range map[string]int{
		"zapu238310005": 23831,
		"zapu10000":     1,
		"zapu00001":     0, // not a PID's spelling
		"zapu0005":      0, // no PID
		"zapu2383a0005": 0,
		"zaptest":       0,
		"zapu":          0,
	} {
		pid, ok := accountOwner(name)
		if ok != (want != 0) || pid != want {
			t.Errorf("accountOwner(%q) = %d, %v; want %d", name, pid, ok, want)
		}
	}
}
