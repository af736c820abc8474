package scripttest

import (
	"fmt"
	"strings"

	"github.com/zap-go/zap/pkg/events"
)

// SecretPiece returns the longest piece of secret, least bytes or more,
// that s holds, or "" when it holds none: what an attack test looks for
// where a secret may have been cut (an output's kept tail) rather than
// written whole.
func SecretPiece(s, secret string, least int) string {
	for n := len(secret); n >= max(least, 1); n-- {
		for i := 0; i+n <= len(secret); i++ {
			if strings.Contains(s, secret[i:i+n]) {
				return secret[i : i+n]
			}
		}
	}
	return ""
}

// CutSecret is the secret the attack tests on a cut output print: 24
// lower-case consonants that spell no word of Zap's and hold no hex digit,
// so four of them in a row in anything Zap writes come from it alone.
const CutSecret = "qxzjvwkqzxjwvkqjzxwvqkzj"

// CutLeaks returns what is wrong with stream, the events of a run whose one
// failing step printed CutSecret (masked as CUT_TOKEN) and then enough that
// its output, kept to its last limit bytes, was cut off bytes into it: four
// bytes of the secret in a row anywhere, a byte of it in a step_failed
// output, an output longer than limit or not ending in the dots printed
// last, and, when the cut fell before the secret (off <= 0), an output
// without its placeholder whole.
func CutLeaks(stream string, limit, off int) []string {
	var bad []string
	if piece := SecretPiece(stream, CutSecret, 4); piece != "" {
		bad = append(bad, fmt.Sprintf("the events hold %q of the secret", piece))
	}
	failed := false
	for _, line := range strings.Split(strings.TrimSpace(stream), "\n") {
		e, err := events.Read([]byte(line))
		if err != nil {
			return append(bad, err.Error())
		}
		if e.Event != events.StepFailed {
			continue
		}
		failed = true
		if piece := SecretPiece(e.Output, CutSecret, 1); piece != "" {
			bad = append(bad, fmt.Sprintf("the output holds %q of the secret", piece))
		}
		if len(e.Output) > limit || !strings.HasSuffix(e.Output, "...") {
			bad = append(bad, fmt.Sprintf("an output of %d bytes ending %q", len(e.Output), e.Output[max(0, len(e.Output)-20):]))
		}
		if off <= 0 && !strings.Contains(e.Output, "[MASKED:CUT_TOKEN]") {
			bad = append(bad, "the output doesn't hold the placeholder whole")
		}
	}
	if !failed {
		bad = append(bad, "no step failed")
	}
	return bad
}
