package sshhost_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/zap-go/zap/internal/execute"
)

// TestPipelineCleansOncePerDirectoryPerRun writes into one directory of
// root's over the loopback sshd: a killed writer's leftover there before
// the run goes with its first write, while one that appears after it stays
// through the run's later puts and links (they skip the directory, handed
// the run's list of cleaned ones), in the same batch and the next, and goes
// with the next run's first write.
func TestPipelineCleansOncePerDirectoryPerRun(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the test needs root, to make a directory of root's for the writes")
	}
	pt := newPipeTarget(t)
	d := filepath.Join(pt.dir, "root")
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	before := filepath.Join(d, ".zap.lk.old001")
	mid := filepath.Join(d, ".zap.lk.mid001")
	if err := os.WriteFile(before, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	exists := func(path string) bool {
		t.Helper()
		_, err := os.Lstat(path)
		return err == nil
	}
	must := func(errs []error, n int) {
		t.Helper()
		if len(errs) != n {
			t.Fatalf("%d of %d steps ran", len(errs), n)
		}
		for i, err := range errs {
			if err != nil {
				t.Fatalf("step %d: %v", i+1, err)
			}
		}
	}
	must(results(t, pt.e, []execute.BatchStep{
		filePut(filepath.Join(d, "a"), "a\n"),
		asRoot("touch " + mid),
		filePut(filepath.Join(d, "b"), "b\n"),
		{Link: &execute.Link{Path: filepath.Join(d, "l"), Target: "a"}},
	}), 4)
	if exists(before) {
		t.Fatalf("%s, there before the run, is still there after its first write", before)
	}
	if !exists(mid) {
		t.Fatalf("%s, left after the run's first write in the directory, was cleaned again in the same run", mid)
	}
	wantFile(t, filepath.Join(d, "b"), "b\n")
	// A later batch of the same run skips it too.
	must(results(t, pt.e, []execute.BatchStep{filePut(filepath.Join(d, "c"), "c\n")}), 1)
	if !exists(mid) {
		t.Fatalf("%s was cleaned again by a later batch of the same run", mid)
	}
	// The next run cleans it with its first write.
	must(results(t, pt.c.Exec(), []execute.BatchStep{filePut(filepath.Join(d, "e"), "e\n")}), 1)
	if exists(mid) {
		t.Fatalf("%s is still there after the next run's first write", mid)
	}
	wantFile(t, filepath.Join(d, "e"), "e\n")
}
