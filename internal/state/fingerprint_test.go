package state

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestFingerprintKey: made on first use, mode 600, the same key after; a
// link, a mode other than 600 or a key of another account refused.
func TestFingerprintKey(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "zap")
	s, err := Open(func(k string) string {
		if k == "ZAP_HOME" {
			return dir
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	k1, err := s.FingerprintKey()
	if err != nil || len(k1) != 32 {
		t.Fatalf("key %x, %v", k1, err)
	}
	path := filepath.Join(dir, KeyFile)
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file %v, %v", fi.Mode(), err)
	}
	if k2, err := s.FingerprintKey(); err != nil || !bytes.Equal(k1, k2) {
		t.Fatalf("second read: %x, %v", k2, err)
	}

	os.Chmod(path, 0o400)
	if _, err := s.FingerprintKey(); !errors.Is(err, ErrUntrusted) {
		t.Errorf("mode 400: %v, want untrusted", err)
	}
	os.Chmod(path, 0o640)
	if _, err := s.FingerprintKey(); !errors.Is(err, ErrUntrusted) {
		t.Errorf("mode 640: %v, want untrusted", err)
	}
	os.Chmod(path, 0o600)

	other := filepath.Join(t.TempDir(), "key")
	os.Rename(path, other)
	os.Symlink(other, path)
	if _, err := s.FingerprintKey(); !errors.Is(err, ErrUntrusted) {
		t.Errorf("a link: %v, want untrusted", err)
	}
	os.Remove(path)
	os.Rename(other, path)

	if os.Geteuid() == 0 {
		os.Chown(path, 65534, 65534)
		if _, err := s.FingerprintKey(); !errors.Is(err, ErrUntrusted) {
			t.Errorf("another account's: %v, want untrusted", err)
		}
	}
}
