// Package textdiff shows how a file's content would change: the unified diff
// from the bytes on the target to the bytes a change writes, for zap plan
// --diff, a dry zap apply --diff and the review a wetrun asks at a terminal.
// It is display only: nothing it returns enters a plan or its hash.
//
// Show returns one of:
//
//   - a unified diff with 3 lines of context, its --- header naming the
//     path on the target and its +++ header the content's source in the
//     config; a file that isn't there yet shows as all added;
//   - "binary or large: N bytes → M bytes, sha512 X… → Y…" when either side
//     is over Limit bytes or isn't UTF-8 text (a NUL counts as binary);
//   - "content withheld: holds a secret (N bytes → M bytes, fingerprint
//     X… → Y…)" when the desired content takes a secret's value and the
//     diff can't be shown masked with certainty (Input.Secrets).
//
// Every line passes through the pass's Masker before it is compared, so a
// secret's value, where it stands, reads [MASKED:NAME] on either side, and
// a value that spans lines is masked whole before the diff's line breaks
// could split it.
//
// The diff is udiff's (github.com/aymanbagabas/go-udiff, the Go tools'
// own line diff, exported): a tested Myers-style diff with a bounded
// effort on large inputs, which Limit keeps small anyway.
package textdiff

import (
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/zap-go/zap/internal/mask"
)

// Limit is the most bytes of one side a diff shows as text: a side over it
// shows as the summary line, and the target's side isn't read past it.
const Limit = 256 << 10

// Context is how many unchanged lines surround each hunk.
const Context = 3

// Input is what one file's diff is made from.
type Input struct {
	// From labels the --- side: the path on the target as the plan shows
	// it. To labels the +++ side: where the desired content comes from
	// in the config ("inline", "template", "source /srv/x").
	From, To string
	// Current is what the target holds; Absent says nothing is there (a
	// new file: all added). Size is the target file's size when Current
	// wasn't read whole (over Limit); 0 takes len(Current). CurrentSHA512
	// is its SHA-512 (hex), which a summary shows when the bytes weren't
	// read.
	Current       []byte
	Absent        bool
	Size          int64
	CurrentSHA512 string
	// Desired is what the change writes; DesiredSize and DesiredSHA512
	// stand for it when its bytes aren't at hand (0 and "": take Desired).
	Desired       []byte
	DesiredSize   int64
	DesiredSHA512 string
	// Mask masks every secret the pass resolved (nil: no secret).
	Mask *mask.Masker
	// Secrets are the values of the secret references the desired content
	// takes (a template's variables). Any at all and the diff is shown
	// only when masking is certain (Withheld); else the withheld line.
	Secrets []string
	// Fingerprint keys a digest for the withheld line (detect.Fingerprint
	// with the operator's key): a plain digest of a secret-bearing file
	// would let a reader test guesses. nil shows sizes only.
	Fingerprint func(sha512hex string) string
}

// Show is the diff of in, or the line that stands for it; "" when the two
// sides are the same bytes.
func Show(in Input) string {
	cur, want := in.Current, in.Desired
	curSize, wantSize := in.Size, in.DesiredSize
	if curSize == 0 {
		curSize = int64(len(cur))
	}
	if wantSize == 0 {
		wantSize = int64(len(want))
	}
	curSum, wantSum := in.CurrentSHA512, in.DesiredSHA512
	if curSum == "" && int64(len(cur)) == curSize && !in.Absent {
		curSum = sum(cur)
	}
	if wantSum == "" && int64(len(want)) == wantSize {
		wantSum = sum(want)
	}
	if !in.Absent && curSum != "" && curSum == wantSum {
		return ""
	}
	if len(in.Secrets) > 0 {
		if d, ok := masked(in); ok {
			return d
		}
		return withheld(in.Absent, curSize, wantSize, fp(in.Fingerprint, curSum), fp(in.Fingerprint, wantSum))
	}
	if !text(cur, curSize) || !text(want, wantSize) {
		return summary(in.Absent, curSize, wantSize, curSum, wantSum)
	}
	return unified(in.From, in.To, in.Mask.String(string(cur)), in.Mask.String(string(want)))
}

// masked is the diff of a file whose desired content takes a secret, and
// whether it can be shown: only when every secret value is one line that
// masks (not blank, no line break), both sides are text, every desired
// line that holds a masked secret stands unchanged on the target's side
// (else the line the target holds in its place may hold an earlier value
// of the secret, which nothing can mask), and no secret value is left in
// what would be shown.
func masked(in Input) (string, bool) {
	if in.Mask == nil || !text(in.Current, int64(len(in.Current))) || !text(in.Desired, int64(len(in.Desired))) || in.Size > int64(len(in.Current)) || in.DesiredSize > int64(len(in.Desired)) {
		return "", false
	}
	for _, v := range in.Secrets {
		if v == "" {
			continue
		}
		if strings.ContainsAny(v, "\r\n") || strings.TrimSpace(v) == "" {
			return "", false
		}
	}
	cur, want := in.Mask.String(string(in.Current)), in.Mask.String(string(in.Desired))
	if !in.Absent {
		have := map[string]bool{}
		for _, l := range strings.SplitAfter(cur, "\n") {
			have[l] = true
		}
		for _, l := range strings.SplitAfter(want, "\n") {
			if strings.Contains(l, "[MASKED:") && !have[l] {
				return "", false
			}
		}
	}
	d := unified(in.From, in.To, cur, want)
	for _, v := range in.Secrets {
		if v != "" && strings.Contains(d, v) {
			return "", false
		}
	}
	return d, true
}

// unified is the unified diff of cur to want under the two labels; a
// cur of "" with want "" is no diff.
func unified(from, to, cur, want string) string {
	edits := udiff.Lines(cur, want)
	d, err := udiff.ToUnified(from, to, cur, edits, Context)
	if err != nil {
		// udiff's own edits of cur are consistent with it.
		return fmt.Sprintf("no diff: %v", err)
	}
	return d
}

// text reports whether b, the whole of a side of size bytes, is text a
// diff can show: all of it at hand, at most Limit bytes, UTF-8, no NUL.
func text(b []byte, size int64) bool {
	return int64(len(b)) == size && size <= Limit && utf8.Valid(b) && !strings.ContainsRune(string(b), 0)
}

// summary is the line that stands for a diff of binary or large content.
func summary(absent bool, cur, want int64, curSum, wantSum string) string {
	return fmt.Sprintf("binary or large: %s → %d bytes, sha512 %s → %s\n", before(absent, cur), want, short(curSum, absent), short(wantSum, false))
}

// withheld is the line that stands for the diff of a file that holds a
// secret.
func withheld(absent bool, cur, want int64, curFP, wantFP string) string {
	if curFP == "" && wantFP == "" {
		return fmt.Sprintf("content withheld: holds a secret (%s → %d bytes)\n", before(absent, cur), want)
	}
	return fmt.Sprintf("content withheld: holds a secret (%s → %d bytes, fingerprint %s → %s)\n", before(absent, cur), want, short(curFP, absent), short(wantFP, false))
}

// before names the target's side of a summary: its size, or no file.
func before(absent bool, n int64) string {
	if absent {
		return "no file"
	}
	return fmt.Sprintf("%d bytes", n)
}

// short is a digest's first 16 hex digits and an ellipsis, "none" for no
// file and "unknown" for a digest not at hand.
func short(h string, absent bool) string {
	switch {
	case absent:
		return "none"
	case len(h) < 16:
		return "unknown"
	}
	return h[:16] + "…"
}

func fp(f func(string) string, sha string) string {
	if f == nil || sha == "" {
		return ""
	}
	return f(sha)
}

func sum(b []byte) string {
	s := sha512.Sum512(b)
	return hex.EncodeToString(s[:])
}
