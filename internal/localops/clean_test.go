package localops

// A run reads each directory once for killed writers' leftovers, however
// many files it writes there.

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/zap-go/zap/internal/execute"
)

// leftover makes at path what a killed writer leaves: a staged file of the
// writer's own, with one name, that nobody holds locked.
func leftover(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, []byte("killed\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func wantLeft(t *testing.T, path string, left bool, when string) {
	t.Helper()
	_, err := os.Lstat(path)
	switch {
	case left && err != nil:
		t.Fatalf("%s: %s is gone (%v), want it left", when, filepath.Base(path), err)
	case !left && err == nil:
		t.Fatalf("%s: %s is left, want it removed", when, filepath.Base(path))
	}
}

// TestCleanOncePerDirectoryPerRun: the first write of a run into a
// directory removes what was left there before; a leftover placed after it
// is not removed by the run's later writes and links there (the directory
// isn't read again), and the next run's first write removes it. A
// directory made anew under the same name is another directory and is
// cleaned; one skipped as others may write it isn't counted as cleaned, so
// once its mode is the writer's alone the next write cleans it.
func TestCleanOncePerDirectoryPerRun(t *testing.T) {
	reads := 0
	cleanHook = func() { reads++ }
	t.Cleanup(func() { cleanHook = nil })
	ctx := context.Background()
	root := t.TempDir()
	write := func(h *Host, name string) {
		t.Helper()
		if err := h.Put(ctx, put(filepath.Join(root, name), []byte(name+"\n"))); err != nil {
			t.Fatal(err)
		}
	}
	wantReads := func(n int, when string) {
		t.Helper()
		if reads != n {
			t.Fatalf("%s: the directories were read %d times, want %d", when, reads, n)
		}
	}

	run := New(nil)
	before := filepath.Join(root, stagedPrefix+"before")
	leftover(t, before)
	write(run, "f1")
	wantLeft(t, before, false, "after the run's first write")
	wantReads(1, "after the first write")

	mid := filepath.Join(root, stagedPrefix+"midrun")
	leftover(t, mid)
	for i := range 50 {
		write(run, "g"+string(rune('a'+i%26))+string(rune('a'+i/26)))
	}
	if err := run.Link(ctx, &execute.Link{Path: filepath.Join(root, "l"), Target: "f1"}); err != nil {
		t.Fatal(err)
	}
	wantLeft(t, mid, true, "after 50 more writes and a link in the run")
	wantReads(1, "after 50 more writes and a link into the same directory")

	// A directory made anew under a name already cleaned is cleaned.
	write(run, "sub/a")
	wantReads(2, "after a write into a second directory")
	if err := os.Rename(filepath.Join(root, "sub"), filepath.Join(root, "sub.old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	again := filepath.Join(root, "sub", stagedPrefix+"again0")
	leftover(t, again)
	write(run, "sub/b")
	wantLeft(t, again, false, "after a write into a directory made anew under a cleaned name")
	wantReads(3, "after a write into a directory made anew")

	// A directory others may write is skipped, and not counted as cleaned.
	shared := filepath.Join(root, "shared")
	if err := os.Mkdir(shared, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chmod(shared, 0o770)
	kept := filepath.Join(shared, stagedPrefix+"shared")
	leftover(t, kept)
	write(run, "shared/a")
	wantLeft(t, kept, true, "after a write into a group-writable directory")
	os.Chmod(shared, 0o700)
	write(run, "shared/b")
	wantLeft(t, kept, false, "after a write once the directory is the writer's alone")
	wantReads(4, "after the shared directory was made the writer's")

	// The next run's first write cleans again.
	write(New(nil), "f2")
	wantLeft(t, mid, false, "after the next run's first write")
	wantReads(5, "after the next run's first write")
}
