package scripttest

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestScriptsOpenWithWhatTheyCheck reads every testscript script in the
// repository (each package's testdata/script/*.txtar) and wants its first
// line to be a comment saying what the script checks: a skip guard or a
// command first, or an opening that names where the script came from (an
// issue, a walk-through, a doc page) instead of a behaviour, is reported.
func TestScriptsOpenWithWhatTheyCheck(t *testing.T) {
	root := repoRoot(t)
	scripts := scriptFiles(t, root)
	if len(scripts) == 0 {
		t.Fatalf("no testdata/script/*.txtar found under %s", root)
	}
	for _, rel := range scripts {
		data, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(data), "\n")
		switch {
		case !strings.HasPrefix(first, "# ") || len(strings.Fields(first)) < 4:
			t.Errorf("%s opens with %q, not a # line saying what it checks", rel, first)
		case originLine.MatchString(first):
			t.Errorf("%s opens with %q: say what it checks, not where it came from", rel, first)
		}
	}
	t.Logf("%d scripts read", len(scripts))
}

// originLine matches an opening comment that names a script's origin: an
// issue, a walk-through or a finding by number, or the getting-started page.
var originLine = regexp.MustCompile(`(?i)\b(issue|walk|page|item|finding|section)\s*#?[0-9]+|getting[- ]started`)

// repoRoot is the directory above the test's holding go.mod.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = up
	}
}

// walkRepo calls fn for every file under root, relative to it, passing over
// hidden directories, node_modules and the built binaries in bin.
func walkRepo(t *testing.T, root string, fn func(rel string)) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || rel == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		fn(filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// scriptFiles lists the scripts testscript runs: the .txtar files in a
// testdata/script directory, relative to root.
func scriptFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	walkRepo(t, root, func(rel string) {
		if strings.HasSuffix(rel, ".txtar") && strings.HasSuffix(path.Dir(rel), "testdata/script") {
			out = append(out, rel)
		}
	})
	return out
}
