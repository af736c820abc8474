package lab

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Start boots a fresh host of kind for a Go test and stops it when the test
// ends. It skips the test, saying why, when the machine can't run that kind
// (Available), and fails it when the host doesn't come up. The returned
// host's Identity is a key of the test's own that root and zaptest accept.
func Start(t testing.TB, kind Kind) *Host {
	t.Helper()
	if err := Available(kind); err != nil {
		t.Skipf("no %s lab host: %v", kind, err)
	}
	identity, pub, err := NewIdentity(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h, err := Boot(Options{Kind: kind, AuthorizedKeys: pub})
	if err != nil {
		t.Fatalf("boot a %s lab host: %v", kind, err)
	}
	h.Identity = identity
	t.Cleanup(func() {
		if err := h.Stop(); err != nil {
			t.Errorf("stop the %s lab host: %v", kind, err)
		}
	})
	return h
}

// NewIdentity makes an ed25519 key pair in dir (id_ed25519, no passphrase)
// and returns the private key's path and the public key.
func NewIdentity(dir string) (string, []byte, error) {
	key := filepath.Join(dir, "id_ed25519")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "zaplab", "-f", key).CombinedOutput(); err != nil {
		return "", nil, fmt.Errorf("ssh-keygen: %v: %s", err, out)
	}
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		return "", nil, err
	}
	return key, pub, nil
}

// Skipped reports whether err is Available's: the machine can't run lab
// hosts (as opposed to a host that failed to come up).
func Skipped(err error) bool { return errors.Is(err, ErrUnavailable) }
