package review

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// CombinedPrefix starts the text a command over several hosts hashes into
// its combined plan_hash (Combined).
const CombinedPrefix = "zap.hosts/1\n"

// Combined is the combined plan_hash of a command over several hosts: the
// SHA-256, in lowercase hex, of CombinedPrefix followed by each host's
// plan_hash and a newline, in the order the command lists the hosts
// (docs/cli.md, Several hosts in one command). It is "" when a host has no
// plan_hash: a host that failed before its plan leaves nothing to bind.
func Combined(hashes []string) string {
	var b strings.Builder
	b.WriteString(CombinedPrefix)
	for _, h := range hashes {
		if h == "" {
			return ""
		}
		b.WriteString(h)
		b.WriteByte('\n')
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:])
}
