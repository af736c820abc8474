package build

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/zeebo/blake3"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// A build is read by its output, which exists if and only if the build is
// installed, and by the provenance sidecar beside it (detection.md, "build:
// exact provenance"): <output>.zap-build holds the provenance of the build
// that made the output, 64 lowercase hex and a line feed.

// SidecarSuffix is what the provenance sidecar's name adds to the output's.
const SidecarSuffix = ".zap-build"

// ProvenanceVersion is the version of the provenance's encoding: a change
// to what it covers or how moves it, and every build reads drifted once.
const ProvenanceVersion = 1

// provenanceTag opens every provenance's hashed bytes.
const provenanceTag = "zap build provenance\x00"

// FieldProvenance is the drift field of a build whose sidecar doesn't hold
// the desired provenance.
const FieldProvenance = "provenance"

// sidecarLimit is how much of the sidecar is read: a provenance and its
// line feed, and a byte more to tell a longer file.
const sidecarLimit = 128

// Provenance is the provenance of b built from the source pinned by pin:
// 64 lowercase hex, the blake3 of a fixed tag, ProvenanceVersion, the pin,
// the extract form (its type, none by default, and strip_components), and
// run, cwd and env as declared, a reference counted as the reference and
// never its value. Each piece is length-prefixed, a Text part by part with
// its kind, and env sorted by name, so two builds share a provenance only
// when all of these are equal (FuzzProvenanceEncoding).
func Provenance(b *declaration.Build, pin string) string {
	h := blake3.New()
	h.Write(provenanceBytes(b, pin))
	return hex.EncodeToString(h.Sum(nil))
}

// provenanceBytes is what Provenance hashes.
func provenanceBytes(b *declaration.Build, pin string) []byte {
	out := []byte(provenanceTag)
	num := func(n uint64) { out = binary.BigEndian.AppendUint64(out, n) }
	str := func(s string) { num(uint64(len(s))); out = append(out, s...) }
	text := func(t declaration.Text) {
		parts := t.Parts()
		num(uint64(len(parts)))
		for _, p := range parts {
			if p.Env != "" {
				out = append(out, 'e')
				str(p.Env)
			} else {
				out = append(out, 'l')
				str(p.Lit)
			}
		}
	}
	num(ProvenanceVersion)
	str(pin)
	extract, strip := string(declaration.ExtractNone), uint64(0)
	if x := b.Source.Extract; x != nil {
		extract = string(x.Type)
		if x.StripComponents != nil {
			strip = uint64(*x.StripComponents)
		}
	}
	str(extract)
	num(strip)
	text(b.Run)
	str(b.Cwd)
	num(uint64(len(b.Env)))
	for _, name := range slices.Sorted(maps.Keys(b.Env)) {
		str(name)
		text(b.Env[name])
	}
	return out
}

// Built reads a build: what is at its output (a link followed), and its
// sidecar's first bytes.
type Built struct {
	Output  string
	Shown   string
	Sidecar string
	// Pin is the source's pin; Want the provenance a build from it has.
	Pin  string
	Want string
}

// NewBuild makes b's detector: its output resolved, its pin from env
// (vendored, or zap.lock's, looked up by env.Resource), and the provenance
// it should have. A pin it can't have holds the build, as does an output
// it can't resolve.
func NewBuild(b *declaration.Build, env detect.Env) detect.Detector {
	pin := env.PinFor(b)
	if pin.Hold != "" {
		return detect.Held(pin.Hold)
	}
	path, shown, reason := detect.ResolvePath("output", b.Output, env)
	if reason != "" {
		return detect.Held(reason)
	}
	return &Built{Output: path, Shown: shown, Sidecar: path + SidecarSuffix, Pin: pin.Blake3, Want: Provenance(b, pin.Blake3)}
}

// Queries: the output's type, a link followed, then the sidecar's content;
// both elevated, like every read of a path.
func (b *Built) Queries() []detect.Query {
	return []detect.Query{
		{Op: detect.OpType, Lane: observation.LaneElevated, Path: b.Output},
		{Op: detect.OpContent, Lane: observation.LaneElevated, Path: b.Sidecar, Limit: sidecarLimit},
	}
}

// Verdict: nothing at the output is absent, whatever the sidecar says; an
// output with the desired provenance in its sidecar is converged; an
// output whose sidecar holds another provenance, none, or something that
// isn't one, or is a symbolic link (which the sidecar's write replaces),
// drifts on provenance. A read that gave no answer, a sidecar that isn't a
// regular file of its own, or one with another hard link holds.
func (b *Built) Verdict(a []detect.Answer) detect.Result {
	if len(a) != 2 {
		return detect.Holding(fmt.Sprintf("%d answers for the 2 reads of %s", len(a), b.Shown))
	}
	out, side := a[0], a[1]
	switch out.Status {
	case detect.StatusOK:
	case detect.StatusMissing:
		return b.pinned(detect.Absent())
	default:
		return detect.Holding(detect.Problem(out, "the output "+b.Shown, 0))
	}
	seen := ""
	switch side.Status {
	case detect.StatusOK:
		got := strings.TrimSuffix(side.Content, "\n")
		if got == b.Want && !side.Over {
			return b.pinned(detect.Converged())
		}
		seen = "not a provenance"
		// A provenance has a fingerprint's form: 64 lowercase hex.
		if observation.ValidFingerprint(got) && !side.Over {
			seen = got
		}
	case detect.StatusMissing:
		seen = "none"
	case detect.StatusNotRegular:
		if side.Type != detect.TypeSymlink {
			return detect.Holding(fmt.Sprintf("the provenance sidecar %s%s is %s, not a regular file", b.Shown, SidecarSuffix, side.Type.Describe()))
		}
		seen = "a symbolic link"
	case detect.StatusHardLinked:
		return detect.Holding(fmt.Sprintf("the provenance sidecar %s%s has %d hard links; replace it with a copy of its own", b.Shown, SidecarSuffix, side.Links))
	default:
		return detect.Holding(detect.Problem(side, "the provenance sidecar "+b.Shown+SidecarSuffix, 0))
	}
	return b.pinned(detect.Drifted([]observation.Difference{{Field: FieldProvenance, Observed: seen, Desired: b.Want}}))
}

// pinned is r with the pin the build was read against, for its steps.
func (b *Built) pinned(r detect.Result) detect.Result {
	r.Pin = b.Pin
	return r
}

// Placement is the sidecar's path, which the build's change writes (its
// run writes where it will, as the connecting user); a sidecar is given no
// owner or group.
func (b *Built) Placement() (string, string, string) { return b.Sidecar, "", "" }
