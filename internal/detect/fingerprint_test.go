package detect

import (
	"bytes"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/observation"
)

// TestFingerprint: keyed, so another key gives another fingerprint, and
// never the content's SHA-512 or SHA-256 or a digest of the seen digest.
func TestFingerprint(t *testing.T) {
	content := []byte("password=zk_live_canary\n")
	s512 := sha512.Sum512(content)
	seen := hex.EncodeToString(s512[:])
	k1, k2 := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)
	a, b := Fingerprint(k1, seen), Fingerprint(k2, seen)
	if len(a) != 64 || !observation.ValidFingerprint(a) || a == b || a != Fingerprint(k1, seen) {
		t.Fatalf("fingerprints %s, %s", a, b)
	}
	s256 := sha256.Sum256(content)
	ss := sha256.Sum256([]byte(seen))
	for _, d := range []string{seen, hex.EncodeToString(s256[:]), hex.EncodeToString(ss[:])} {
		if strings.Contains(d, a) || strings.Contains(a, d) {
			t.Fatalf("the fingerprint %s is a plain digest", a)
		}
	}
	if Fingerprint(k1, "") != "" {
		t.Fatal("nothing seen has a fingerprint")
	}
}
