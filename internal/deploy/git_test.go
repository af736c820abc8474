package deploy

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/deployplan"
)

// gitRepo is a checkout in a fresh directory with one commit of the given
// files, read by a git that sees no global or system configuration.
func gitRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("skipped: reading the tree needs git, which this machine lacks")
	}
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_AUTHOR_NAME", "t")
	t.Setenv("GIT_AUTHOR_EMAIL", "t@example.org")
	t.Setenv("GIT_COMMITTER_NAME", "t")
	t.Setenv("GIT_COMMITTER_EMAIL", "t@example.org")
	dir := t.TempDir()
	run(t, dir, "git", "init", "-q", "-b", "main", ".")
	for name, body := range files {
		write(t, dir, name, body)
	}
	run(t, dir, "git", "add", "-A")
	run(t, dir, "git", "commit", "-q", "-m", "one")
	return dir
}

func run(t *testing.T, dir string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v: %s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func write(t *testing.T, dir, name, body string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readSource(t *testing.T, dir string) deployplan.Source {
	t.Helper()
	s, err := ReadSource(context.Background(), dir)
	if err != nil {
		t.Fatalf("ReadSource: %v", err)
	}
	return s
}

// gitStatusClean fails unless git status, by the checkout's own settings,
// sees no change: the setup of a change only Zap's read of the tree sees.
func gitStatusClean(t *testing.T, dir string) {
	t.Helper()
	if out := run(t, dir, "git", "status", "--porcelain"); out != "" {
		t.Fatalf("the setup: git status should see no change, says %q", out)
	}
}

var (
	cleanVersion = regexp.MustCompile(`^[0-9a-f]{12}$`)
	dirtyVersion = regexp.MustCompile(`^([0-9a-f]{12})-dirty-([0-9a-f]{8})$`)
)

// mustClean fails unless s is the clean tree of the checkout's HEAD.
func mustClean(t *testing.T, dir string, s deployplan.Source) {
	t.Helper()
	head := strings.TrimSpace(run(t, dir, "git", "rev-parse", "HEAD"))
	if s.Tree != deployplan.Clean || s.DirtyID != "" || s.Commit != head || !cleanVersion.MatchString(s.Version) || !strings.HasPrefix(head, s.Version) {
		t.Fatalf("want the clean tree of %s, got %+v", head, s)
	}
}

// mustDirty fails unless s is a dirty tree of the checkout's HEAD, and
// returns its id.
func mustDirty(t *testing.T, dir string, s deployplan.Source) string {
	t.Helper()
	head := strings.TrimSpace(run(t, dir, "git", "rev-parse", "HEAD"))
	m := dirtyVersion.FindStringSubmatch(s.Version)
	if s.Tree != deployplan.Dirty || m == nil || m[2] != s.DirtyID || s.Commit != head || !strings.HasPrefix(head, m[1]) {
		t.Fatalf("want a dirty tree of %s as <hash>-dirty-<id>, got %+v", head, s)
	}
	return s.DirtyID
}

func TestReadSourceClean(t *testing.T) {
	dir := gitRepo(t, map[string]string{"a.txt": "a\n", ".gitignore": "build/\n", "sub/b.txt": "b\n"})
	mustClean(t, dir, readSource(t, dir))
	// An ignored file adds nothing, and a read from below the top agrees.
	write(t, dir, "build/out", "x")
	mustClean(t, dir, readSource(t, dir))
	mustClean(t, dir, readSource(t, filepath.Join(dir, "sub")))
}

func TestReadSourceNotACheckout(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("skipped: reading the tree needs git, which this machine lacks")
	}
	t.Setenv("GIT_CEILING_DIRECTORIES", os.TempDir())
	_, err := ReadSource(context.Background(), t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "git checkout") {
		t.Fatalf("a directory outside any checkout: want an error naming the checkout, got %v", err)
	}
}

// TestReadSourceDirtyID: the id is over what the tree adds, so the same
// additions read the same id, other additions another, and taking them
// back reads clean.
func TestReadSourceDirtyID(t *testing.T) {
	dir := gitRepo(t, map[string]string{"a.txt": "a\n"})
	write(t, dir, "a.txt", "changed\n")
	first := mustDirty(t, dir, readSource(t, dir))
	if again := mustDirty(t, dir, readSource(t, dir)); again != first {
		t.Fatalf("the same tree read twice: ids %s and %s", first, again)
	}
	write(t, dir, "a.txt", "changed otherwise\n")
	if other := mustDirty(t, dir, readSource(t, dir)); other == first {
		t.Fatalf("a different change kept the id %s", first)
	}
	write(t, dir, "a.txt", "changed\n")
	if back := mustDirty(t, dir, readSource(t, dir)); back != first {
		t.Fatalf("the first change again: id %s, want %s", back, first)
	}
	write(t, dir, "a.txt", "a\n")
	mustClean(t, dir, readSource(t, dir))

	// The same additions on the same commit in another clone read the
	// same id: nothing of the checkout's own (its path, its index) counts.
	clone := filepath.Join(t.TempDir(), "clone")
	run(t, dir, "git", "clone", "-q", dir, clone)
	write(t, dir, "a.txt", "changed\n")
	write(t, clone, "a.txt", "changed\n")
	if c := mustDirty(t, clone, readSource(t, clone)); c != first {
		t.Fatalf("the same change in a clone: id %s, want %s", c, first)
	}
}

func TestReadSourceUntracked(t *testing.T) {
	dir := gitRepo(t, map[string]string{"a.txt": "a\n"})
	write(t, dir, "new.txt", "n\n")
	id := mustDirty(t, dir, readSource(t, dir))
	write(t, dir, "new.txt", "m\n")
	if other := mustDirty(t, dir, readSource(t, dir)); other == id {
		t.Fatalf("an untracked file's contents changed and the id stayed %s", id)
	}
	// A setting that hides untracked files from git status hides nothing
	// from the deploy.
	run(t, dir, "git", "config", "status.showUntrackedFiles", "no")
	mustDirty(t, dir, readSource(t, dir))
	// Nor does an untracked file in a new directory hide in it.
	os.Remove(filepath.Join(dir, "new.txt"))
	write(t, dir, "deep/er/x.txt", "x\n")
	mustDirty(t, dir, readSource(t, dir))
}

func TestReadSourceRemovedFile(t *testing.T) {
	dir := gitRepo(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	os.Remove(filepath.Join(dir, "b.txt"))
	mustDirty(t, dir, readSource(t, dir))
}

// TestReadSourceIndexFlags: a change the checkout's index marks unchanged
// counts, and reading the tree leaves that index as it was.
func TestReadSourceIndexFlags(t *testing.T) {
	for _, flag := range []string{"--assume-unchanged", "--skip-worktree"} {
		t.Run(flag, func(t *testing.T) {
			dir := gitRepo(t, map[string]string{"a.txt": "a\n"})
			run(t, dir, "git", "update-index", flag, "a.txt")
			write(t, dir, "a.txt", "hidden\n")
			if out := run(t, dir, "git", "status", "--porcelain"); out != "" {
				t.Fatalf("the setup: git status should miss the change, says %q", out)
			}
			index := filepath.Join(dir, ".git", "index")
			before, err := os.ReadFile(index)
			if err != nil {
				t.Fatal(err)
			}
			mustDirty(t, dir, readSource(t, dir))
			after, err := os.ReadFile(index)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(before, after) {
				t.Fatal("reading the tree rewrote the checkout's index")
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".git", "zap-deploy-index-*")); len(left) > 0 {
				t.Fatalf("the private index was left behind: %v", left)
			}
		})
	}
}

// TestReadSourceStaleTimestamps: a same-size edit within the index's
// timestamp granularity, which git's stat cache takes for unchanged,
// counts.
func TestReadSourceStaleTimestamps(t *testing.T) {
	dir := gitRepo(t, map[string]string{"a.txt": "aaaa\n"})
	p := filepath.Join(dir, "a.txt")
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, "a.txt", "bbbb\n")
	if err := os.Chtimes(p, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	run(t, dir, "git", "config", "core.ignoreStat", "true")
	mustDirty(t, dir, readSource(t, dir))
}

// TestReadSourceModeChange: core.fileMode=false in the checkout doesn't
// hide a mode change.
func TestReadSourceModeChange(t *testing.T) {
	dir := gitRepo(t, map[string]string{"run.sh": "#!/bin/sh\n"})
	run(t, dir, "git", "config", "core.fileMode", "false")
	if err := os.Chmod(filepath.Join(dir, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	gitStatusClean(t, dir)
	mustDirty(t, dir, readSource(t, dir))
}

// TestReadSourceAutocrlf: a checkout made with core.autocrlf=true has CRLF
// line endings the commit lacks, so it reads dirty, though git status
// says clean.
func TestReadSourceAutocrlf(t *testing.T) {
	dir := gitRepo(t, map[string]string{"a.txt": "one\ntwo\n"})
	run(t, dir, "git", "config", "core.autocrlf", "true")
	os.Remove(filepath.Join(dir, "a.txt"))
	run(t, dir, "git", "checkout", "--", "a.txt")
	b, err := os.ReadFile(filepath.Join(dir, "a.txt"))
	if err != nil || !bytes.Contains(b, []byte("\r\n")) {
		t.Fatalf("the setup: want CRLF in the checkout, have %q (%v)", b, err)
	}
	gitStatusClean(t, dir)
	mustDirty(t, dir, readSource(t, dir))
}

// TestReadSourceCleanFilter: a clean filter the checkout's attributes
// name still applies (the spec keeps attributes): a file that differs only
// in what the filter takes out compares equal.
func TestReadSourceCleanFilter(t *testing.T) {
	dir := gitRepo(t, map[string]string{".gitattributes": "*.txt filter=nocomment\n"})
	run(t, dir, "git", "config", "filter.nocomment.clean", "sed /^#/d")
	run(t, dir, "git", "config", "filter.nocomment.smudge", "cat")
	write(t, dir, "a.txt", "body\n")
	run(t, dir, "git", "add", "a.txt")
	run(t, dir, "git", "commit", "-q", "-m", "two")
	mustClean(t, dir, readSource(t, dir))
	write(t, dir, "a.txt", "# note\nbody\n")
	mustClean(t, dir, readSource(t, dir))
	write(t, dir, "a.txt", "body2\n")
	mustDirty(t, dir, readSource(t, dir))
}

// TestReadSourceSparse: a sparse checkout reads dirty though nothing in
// its cone changed, and its id is steady.
func TestReadSourceSparse(t *testing.T) {
	dir := gitRepo(t, map[string]string{"in/a.txt": "a\n", "out/b.txt": "b\n", "top.txt": "t\n"})
	run(t, dir, "git", "sparse-checkout", "set", "in")
	if _, err := os.Stat(filepath.Join(dir, "out", "b.txt")); !os.IsNotExist(err) {
		t.Fatalf("the setup: out/b.txt should be outside the cone, stat says %v", err)
	}
	gitStatusClean(t, dir)
	id := mustDirty(t, dir, readSource(t, dir))
	if again := mustDirty(t, dir, readSource(t, dir)); again != id {
		t.Fatalf("the same sparse tree read twice: ids %s and %s", id, again)
	}
	// A sparse checkout whose patterns take in every file still reads
	// dirty: it is the setting that counts, not which files are missing.
	run(t, dir, "git", "sparse-checkout", "set", "--no-cone", "/*")
	if _, err := os.Stat(filepath.Join(dir, "out", "b.txt")); err != nil {
		t.Fatalf("the setup: out/b.txt should be back, stat says %v", err)
	}
	mustDirty(t, dir, readSource(t, dir))
	run(t, dir, "git", "sparse-checkout", "disable")
	mustClean(t, dir, readSource(t, dir))
}

// TestReadSourceSubmodule: a submodule checked out at another commit than
// the one recorded counts, ignore=all in .gitmodules notwithstanding.
func TestReadSourceSubmodule(t *testing.T) {
	sub := gitRepo(t, map[string]string{"s.txt": "s\n"})
	dir := gitRepo(t, map[string]string{"a.txt": "a\n"})
	run(t, dir, "git", "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "sub")
	run(t, dir, "git", "config", "-f", ".gitmodules", "submodule.sub.ignore", "all")
	run(t, dir, "git", "add", "-A")
	run(t, dir, "git", "commit", "-q", "-m", "sub")
	mustClean(t, dir, readSource(t, dir))
	run(t, filepath.Join(dir, "sub"), "git", "commit", "-q", "--allow-empty", "-m", "moved")
	mustDirty(t, dir, readSource(t, dir))
}
