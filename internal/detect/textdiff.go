package detect

import "github.com/zap-go/zap/internal/mask"

// TextLimit is the most bytes of a side a diff shows as text, and what a
// text read reads at most (internal/textdiff's Limit; a test holds the two
// equal).
const TextLimit = 256 << 10

// DiffSides is what a content diff is made from: internal/textdiff's
// Input, field for field. The diff itself is made by zap-detect
// (internal/textdiff), outside the planner's pure dependencies.
type DiffSides struct {
	From, To      string
	Current       []byte
	Absent        bool
	Size          int64
	CurrentSHA512 string
	Desired       []byte
	DesiredSize   int64
	DesiredSHA512 string
	Mask          *mask.Masker
	Secrets       []string
	Fingerprint   func(sha512hex string) string
}
