package detect

import "github.com/zap-go/zap/pkg/declaration"

// Pin is what the reads of a resource that fetches (a remote file, an
// apt_repo's key, a build's source) compare against: the blake3 of the
// pinned bytes, and their SHA-512 when the operator's content cache holds
// them (a target has sha512sum, not b3sum).
type Pin struct {
	// Blake3 is the pin, 64 lowercase hex: the vendored one, or else
	// zap.lock's entry. "" when there is none, and Hold says why.
	Blake3 string
	// SHA512 is the pinned bytes' SHA-512, 128 lowercase hex, when the
	// content cache holds them (checked against the pin as they were
	// read); "" when it doesn't.
	SHA512 string
	// Hold is why the resource holds instead of being read: a tracked pin
	// with no lock entry, a stale entry, one that can't be verified.
	Hold string
}

// PinOf is the pin r's reads compare against (f is r.Fetched()): what
// env.Pin says, or without one the vendored pin alone, never cached.
func (env Env) PinOf(r *declaration.Resource, f declaration.Fetched) Pin {
	if env.Pin != nil {
		return env.Pin(r, f)
	}
	if f.Blake3 != "" {
		return Pin{Blake3: f.Blake3}
	}
	return Pin{Hold: "its pin is tracked in zap.lock, and this pass reads no lock"}
}

// pinFor is the pin of env.Resource (which kind.Def sets), whose body is
// b: PinOf what it fetches. Without that resource there is no id to look
// a tracked pin up by, and the pin holds.
// PinFor is the pin a kind's own detector compares the body b's fetched
// bytes with (see pinFor).
func (env Env) PinFor(b declaration.Body) Pin { return env.pinFor(b) }

func (env Env) pinFor(b declaration.Body) Pin {
	r := env.Resource
	if r == nil || r.Body != b {
		return Pin{Hold: "no resource to look its pin up by"}
	}
	f, _ := r.Fetched()
	return env.PinOf(r, f)
}
