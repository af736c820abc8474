package lab

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestBuildOnce checks that an image is built into a directory of its own
// and renamed into place, built only when its root is missing, and that a
// failed build leaves nothing at the image's name.
func TestBuildOnce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "img")
	boom := errors.New("boom")
	built, err := buildOnce(dir, func(tmp string) error {
		if tmp == dir {
			t.Errorf("built in place, at %s", tmp)
		}
		os.Mkdir(filepath.Join(tmp, "root"), 0o755)
		return boom
	})
	if built || !errors.Is(err, boom) {
		t.Fatalf("failed build: built %v, err %v", built, err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("a failed build left %s: %v", dir, err)
	}
	built, err = buildOnce(dir, func(tmp string) error {
		return os.Mkdir(filepath.Join(tmp, "root"), 0o755)
	})
	if !built || err != nil {
		t.Fatalf("build: built %v, err %v", built, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "root")); err != nil || !fi.IsDir() {
		t.Fatalf("no root in the built image: %v", err)
	}
	built, err = buildOnce(dir, func(string) error {
		t.Error("built again over a root that is there")
		return nil
	})
	if built || err != nil {
		t.Fatalf("second build: built %v, err %v", built, err)
	}
}
