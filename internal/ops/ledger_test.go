package ops

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/plan"
)

// ledgerScript is the named ledger script with /var/lib/zap replaced by a
// directory of the test's own (the scripts name the real one as a
// constant; this machine's /var/lib/zap is left alone).
func ledgerScript(t *testing.T, name, state string) string {
	s, ok := Script(plan.OpName(name))
	if !ok {
		t.Fatalf("no script for %s", name)
	}
	if !strings.Contains(s.Text, "/var/lib/zap") {
		t.Fatalf("%s doesn't name /var/lib/zap", name)
	}
	return "umask 077\n" + strings.ReplaceAll(s.Text, "/var/lib/zap", state)
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode()
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestLedgerMarkAndClear: the marker is written with the directories made
// 755 and the marker 644 under a umask of 077 (and a state directory left
// 700 is set to 755); a restart owed is never lowered to a reload, a reload
// is raised to a restart; the clear removes it, and clearing nothing is no
// change; a link in place of either directory writes nothing.
func TestLedgerMarkAndClear(t *testing.T) {
	for _, sh := range svcShells(t) {
		t.Run(sh[0], func(t *testing.T) {
			root := t.TempDir()
			state := filepath.Join(root, "lib", "zap")
			mark, clear := ledgerScript(t, "ledger-mark", state), ledgerScript(t, "ledger-clear", state)
			path := "/usr/bin:/bin"
			if code, stderr := runScript(t, sh, clear, path, "nginx"); code != 0 {
				t.Errorf("clear with no directory: %d %s", code, stderr)
			}
			if code, stderr := runScript(t, sh, mark, path, "nginx", "reload"); code != 0 {
				t.Fatalf("mark: %d %s", code, stderr)
			}
			m := filepath.Join(state, "pending", "nginx")
			if got := read(t, m); got != "reload\n" {
				t.Errorf("marker %q", got)
			}
			for p, want := range map[string]os.FileMode{state: os.ModeDir | 0o755, filepath.Join(state, "pending"): os.ModeDir | 0o755, m: 0o644} {
				if got := mode(t, p); got != want {
					t.Errorf("%s: mode %v, want %v", p, got, want)
				}
			}
			runScript(t, sh, mark, path, "nginx", "restart")
			if got := read(t, m); got != "restart\n" {
				t.Errorf("a restart over a reload: %q", got)
			}
			runScript(t, sh, mark, path, "nginx", "reload")
			if got := read(t, m); got != "restart\n" {
				t.Errorf("a reload over a restart: %q", got)
			}
			entries, _ := os.ReadDir(filepath.Join(state, "pending"))
			if len(entries) != 1 {
				t.Errorf("pending holds %d entries, want the marker alone", len(entries))
			}
			if err := os.Chmod(state, 0o700); err != nil {
				t.Fatal(err)
			}
			runScript(t, sh, mark, path, "web", "reload")
			if got := mode(t, state); got != os.ModeDir|0o755 {
				t.Errorf("a state directory of mode 700: now %v", got)
			}
			if code, stderr := runScript(t, sh, clear, path, "nginx"); code != 0 {
				t.Errorf("clear: %d %s", code, stderr)
			}
			if _, err := os.Lstat(m); !os.IsNotExist(err) {
				t.Errorf("the marker is still there: %v", err)
			}
			if code, _ := runScript(t, sh, clear, path, "nginx"); code != 0 {
				t.Errorf("clearing nothing: %d", code)
			}
			for _, args := range [][]string{{"nginx", "stop"}, {"-x", "reload"}, {"a/b", "reload"}, {"..", "reload"}, {"nginx"}} {
				if code, _ := runScript(t, sh, mark, path, args...); code != 93 {
					t.Errorf("mark %q: exit %d, want 93", args, code)
				}
			}
			// A link in place of pending/: nothing is written through it.
			other := filepath.Join(root, "other")
			if err := os.Mkdir(other, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.RemoveAll(filepath.Join(state, "pending")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(other, filepath.Join(state, "pending")); err != nil {
				t.Fatal(err)
			}
			if code, _ := runScript(t, sh, mark, path, "nginx", "reload"); code != 94 {
				t.Errorf("mark through a link: exit %d, want 94", code)
			}
			if code, _ := runScript(t, sh, clear, path, "nginx"); code != 94 {
				t.Errorf("clear through a link: exit %d, want 94", code)
			}
			if entries, _ := os.ReadDir(other); len(entries) != 0 {
				t.Errorf("%d entries written through the link", len(entries))
			}
		})
	}
}
