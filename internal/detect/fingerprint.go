package detect

import (
	"encoding/hex"

	"github.com/zeebo/blake3"
)

// Fingerprint is what the observations and the plan record of a Result's
// Seen: the BLAKE3 of it keyed with the operator's fingerprint key
// (state.FingerprintKey), 64 lowercase hex digits; "" when nothing was
// seen. A file's SHA-512 in a printed plan would let its reader confirm a
// guessed secret the file holds; a keyed fingerprint lets only a holder of
// the key compare, which zap-exec does against what it reads before it
// acts.
func Fingerprint(key []byte, seen string) string {
	if seen == "" {
		return ""
	}
	h, err := blake3.NewKeyed(key)
	if err != nil {
		// Only a key that isn't 32 bytes; the caller's to prevent.
		panic("detect: fingerprint key: " + err.Error())
	}
	h.WriteString("zap fingerprint v1\n")
	h.WriteString(seen)
	return hex.EncodeToString(h.Sum(nil))
}
