package fetch

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// The kinds of failure a caller may tell apart (errors.Is). ErrRefused and
// ErrMismatch are about the operator's inputs (a URL or pin to fix); the
// rest are problems in the world.
var (
	// ErrRefused: a URL, a redirect or a credential Zap doesn't fetch with.
	ErrRefused = errors.New("refused")
	// ErrTooLarge: the body is over the size bound.
	ErrTooLarge = errors.New("too large")
	// ErrTimeout: a time bound was hit (connect, TLS, headers, or total).
	ErrTimeout = errors.New("timed out")
	// ErrStatus: the server answered something other than 200 OK.
	ErrStatus = errors.New("not served")
	// ErrMismatch: the bytes don't hash to the pin (*MismatchError).
	ErrMismatch = errors.New("pin mismatch")
	// ErrCorrupt: a cache entry's bytes don't hash to its name. Cache.Open
	// has removed it.
	ErrCorrupt = errors.New("corrupt cache entry")
	// ErrUntrusted: the cache directory or an entry isn't a private
	// directory or regular file of the user's own, or is a link.
	ErrUntrusted = errors.New("untrusted")
)

// Error is a fetch's failure. It names the URL as the config declares it,
// its references unresolved; nothing in it comes from the resolved URL or
// the credential.
type Error struct {
	URL string // as declared
	Err error
}

func (e *Error) Error() string { return "fetch " + e.URL + ": " + e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }

// MismatchError is bytes that hash to Got where the pin says Want, both
// 64 lowercase hex digits of blake3.
type MismatchError struct {
	Want, Got string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("%v: expected blake3 %s, got %s", ErrMismatch, e.Want, e.Got)
}

func (e *MismatchError) Is(target error) bool { return target == ErrMismatch }

// redacted stands for a piece of the resolved URL or the credential in a
// message from the network stack.
const redacted = "[resolved]"

// scrubber removes from a message what came from the resolved URL and not
// from its declared spelling, and the credential: a resolver's or TLS
// error names the host, which a reference may have supplied. A piece of
// the URL shorter than minPiece is left: a path "/" would take every slash
// out of a message, and so few characters hide nothing worth the name.
type scrubber []string

const minPiece = 4

func newScrubber(declared string, u *url.URL, raw, bearer string) scrubber {
	var s scrubber
	add := func(v string, min int) {
		if len(v) >= min && !strings.Contains(declared, v) {
			s = append(s, v)
		}
	}
	add(raw, 1)
	add(bearer, 1)
	if u != nil {
		for _, v := range []string{u.Host, u.Hostname(), u.EscapedPath(), u.Path, u.RawQuery, u.Fragment} {
			add(v, minPiece)
		}
	}
	return s
}

// scrub returns msg with every piece replaced, longest first, so a piece
// inside a longer one doesn't leave the rest of it.
func (s scrubber) scrub(msg string) string {
	pieces := slices.Clone(s)
	slices.SortFunc(pieces, func(a, b string) int { return len(b) - len(a) })
	for _, p := range pieces {
		msg = strings.ReplaceAll(msg, p, redacted)
	}
	return msg
}

// scrubbed is an error from the network stack with its text scrubbed. It
// matches what the error matched (errors.Is), and kind, but doesn't unwrap
// to it: errors.As would reach the unscrubbed text.
type scrubbed struct {
	err  error
	kind error // nil, or ErrTimeout
	msg  string
}

func (e *scrubbed) Error() string {
	if e.kind != nil {
		return e.kind.Error() + ": " + e.msg
	}
	return e.msg
}

func (e *scrubbed) Is(target error) bool {
	return target != nil && (target == e.kind || errors.Is(e.err, target))
}

// Refused reports whether err is an input to fix rather than the world's
// doing: a URL or redirect the rules refuse, bytes that aren't the pin's or
// over the bound, a signature that doesn't verify or a minisign Zap won't
// run (exit 2 where a network failure is 1).
func Refused(err error) bool {
	for _, e := range []error{ErrRefused, ErrMismatch, ErrMinisign, ErrTooLarge} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
