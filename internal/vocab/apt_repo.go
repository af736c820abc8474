package vocab

import (
	"strings"

	"github.com/zap-go/zap/pkg/plan"
)

// The operations of an apt_repo (internal/ops/scripts/apt-*.sh). apt-source
// is the probe detection reads the source line with; apt-list writes the
// list file, resolving the line the same way, as root.
const (
	OpAptSource plan.OpName = "apt-source" // LINE: prints LINE as a shell reads it with /etc/os-release sourced
	OpAptList   plan.OpName = "apt-list"   // PATH LINE: the list file written whole with LINE so read, 644 root:root, by rename
)

// AptListTimeout is the apt-list operation's limit, in seconds.
const AptListTimeout = 60

// AptKeyLimit is the largest signing key Zap fetches, reads or compares:
// a key at key_path over it holds. AptListLimit is how much of a list file
// detection reads; one longer differs from any line Zap writes.
const (
	AptKeyLimit  = 1 << 20
	AptListLimit = 64 << 10
)

// The key and the list file are installed 644 root:root.
const (
	AptFileMode  = "644"
	AptFileOwner = "root"
)

// The parts of an apt_repo's drift (the field names); the planner reads
// them to pick the steps.
const (
	FieldAptKey  = "key"
	FieldAptList = "list"
)

// AptSourceLine is source with signed-by=keyPath injected: added to the
// line's options ([...] after deb or deb-src, made when there are none),
// in place of any signed-by the line names.
func AptSourceLine(source, keyPath string) string {
	typ, rest, _ := strings.Cut(strings.TrimSpace(source), " ")
	rest = strings.TrimLeft(rest, " \t")
	var opts []string
	if inner, after, ok := strings.Cut(strings.TrimPrefix(rest, "["), "]"); ok && strings.HasPrefix(rest, "[") {
		for _, o := range strings.Fields(inner) {
			if !strings.HasPrefix(o, "signed-by=") {
				opts = append(opts, o)
			}
		}
		rest = strings.TrimLeft(after, " \t")
	}
	opts = append(opts, "signed-by="+keyPath)
	return typ + " [" + strings.Join(opts, " ") + "] " + rest
}
