package zapcli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/exit"
)

// TestProjectName: the package.json name zap init derives from the
// directory is one npm takes, whatever the directory is called.
func TestProjectName(t *testing.T) {
	for dir, want := range map[string]string{
		"/home/me/infra":                       "infra",
		"/home/me/My Servers":                  "my-servers",
		"/home/me/.hidden":                     "hidden",
		"/home/me/_x__y":                       "x__y",
		"/home/me/ünïcode-box":                 "n-code-box",
		"/home/me/web.example~1":               "web.example~1",
		"/home/me/---":                         "zap-config",
		"/":                                    "zap-config",
		"/home/me/" + strings.Repeat("a", 300): strings.Repeat("a", 214),
	} {
		if got := projectName(dir); got != want {
			t.Errorf("projectName(%q) = %q, want %q", dir, got, want)
		}
	}
}

// TestTypesReplacesOnlyItsOwn: zap types writes the package, writes it
// again whole (a file an older copy had is gone), and refuses a folder
// there that isn't a copy of the package, leaving it as it was.
func TestTypesReplacesOnlyItsOwn(t *testing.T) {
	dir := t.TempDir()
	n, err := writeTypes(dir)
	if err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(dir, typesDir)
	for _, f := range []string{"index.ts", "types.ts", "package.json", "recipes/nginx.ts"} {
		if _, err := os.Stat(filepath.Join(dest, f)); err != nil {
			t.Errorf("zap types wrote no %s: %v", f, err)
		}
	}
	stale := filepath.Join(dest, "gone.ts")
	if err := os.WriteFile(stale, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if again, err := writeTypes(dir); err != nil || again != n {
		t.Fatalf("zap types again: %d files, %v; want %d", again, err, n)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("a file the old copy had is still there: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(dest))
	if len(entries) != 1 {
		t.Errorf("zap types left more than the package beside it: %v", entries)
	}

	foreign := t.TempDir()
	mine := filepath.Join(foreign, typesDir)
	if err := os.MkdirAll(mine, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mine, "package.json"), []byte(`{"name": "mine"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = writeTypes(foreign)
	if exit.Code(err) != 2 || !strings.Contains(err.Error(), "is not a copy of @zap-go/zap") {
		t.Fatalf("zap types over a folder of another package: %v, want exit 2 naming it", err)
	}
	if got, _ := os.ReadFile(filepath.Join(mine, "package.json")); string(got) != `{"name": "mine"}` {
		t.Errorf("the refused folder changed: %q", got)
	}
}

// TestInitUndoesWhenLockFails: when the zap lock zap init runs fails (here
// the evaluator refuses the config), what init wrote, the directory it
// made included, is removed again, and the error says so.
func TestInitUndoesWhenLockFails(t *testing.T) {
	f := newFake(t)
	f.stage("zap-eval", 2, "error: zap.ts:1:1: the config is wrong\n")
	code, stdout, stderr := f.run("init", "fresh/proj")
	if code != 2 {
		t.Fatalf("zap init exited %d, want 2\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "hint: zap init removed what it wrote") {
		t.Errorf("stderr doesn't say what was undone:\n%s", stderr)
	}
	if _, err := os.Lstat("fresh"); !os.IsNotExist(err) {
		t.Errorf("fresh/ is still there after the undo: %v", err)
	}
}
