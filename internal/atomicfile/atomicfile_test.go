package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := Write(p, []byte("one"), 0o600, nil); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("two"), 0o640, nil); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	fi, _ := os.Stat(p)
	if string(b) != "two" || fi.Mode().Perm() != 0o640 {
		t.Errorf("got %q mode %v", b, fi.Mode())
	}
	// A refusal just before the rename leaves the old bytes and no
	// temporary file behind.
	stop := errors.New("stop")
	if err := Write(p, []byte("three"), 0o600, func() error { return stop }); err != stop {
		t.Fatalf("err %v", err)
	}
	b, _ = os.ReadFile(p)
	entries, _ := os.ReadDir(dir)
	if string(b) != "two" || len(entries) != 1 {
		t.Errorf("after a refusal: %q, %d entries", b, len(entries))
	}
}
