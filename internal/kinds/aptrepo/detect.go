package aptrepo

import (
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/zeebo/blake3"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// AptRepo detects an apt repository by three reads: the signing key's
// bytes at KeyPath and the list file's at ListFile (each a bounded content
// read, elevated: a regular file of its own only), and the apt-source
// probe as the login user, which prints the source line, signed-by in it,
// as a shell reads it with /etc/os-release sourced: the text the apt-list
// step writes. The key is compared with the pin by the blake3 of its
// bytes, taken here on the operator's side (the target has no b3sum); the
// list file with the resolved line and a line break.
type AptRepo struct {
	KeyPath  string
	ListFile string
	// Line is the source line as declared with signed-by injected
	// (SourceLine), before the target's shell reads it.
	Line string
	// Pin is the blake3 of the pinned key, 64 lowercase hex.
	Pin string
	// Remember, when set, takes a key read on the target that is the
	// pinned bytes, which the content cache doesn't hold (cached false),
	// into the cache, so a later put of the key needn't fetch it.
	Remember func(pin string, data []byte)
	cached   bool
	probe    string
}

// NewAptRepo makes x's detector: the default paths name env.Resource's
// id, and the key's pin is env's (vendored, or zap.lock's).
func NewAptRepo(x *declaration.AptRepo, env detect.Env) detect.Detector {
	id := ""
	if env.Resource != nil {
		id = env.Resource.ID
	}
	return newAptRepo(x, id, env.PinFor(x), env.Remember)
}

// newAptRepo is NewAptRepo given the resource's id, the key's pin and
// env.Remember. A pin that holds (none yet, a stale lock entry) holds the
// resource, reading nothing.
func newAptRepo(x *declaration.AptRepo, id string, pin detect.Pin, remember func(pin string, data []byte)) detect.Detector {
	if pin.Hold != "" {
		return detect.Held("key_url: " + pin.Hold)
	}
	if pin.Blake3 == "" {
		return detect.Held("key_url: the signing key has no pin")
	}
	script, ok := ops.Script(OpSource)
	if !ok {
		return detect.Held("this zap has no apt-source script")
	}
	keyPath, listFile := x.Paths(id)
	line := SourceLine(x.Source, keyPath)
	return &AptRepo{KeyPath: keyPath, ListFile: listFile, Line: line, Pin: pin.Blake3,
		Remember: remember, cached: pin.SHA512 != "",
		probe: "set -- " + vocab.Quote(line) + "\n" + script.Text}
}

// Queries: the key's bytes and the list file's (elevated), then the
// source line as the target's shell reads it (login).
func (d *AptRepo) Queries() []detect.Query {
	return []detect.Query{
		{Op: detect.OpContent, Lane: observation.LaneElevated, Path: d.KeyPath, Limit: vocab.AptKeyLimit},
		{Op: detect.OpContent, Lane: observation.LaneElevated, Path: d.ListFile, Limit: ListLimit},
		detect.NewProbe(observation.LaneLogin, d.probe),
	}
}

// Verdict: neither the key nor the list file there is absent; both as
// wanted is converged; anything between drifted, a difference for the key
// (missing, or bytes that aren't the pin's: "signing key differs from its
// pin") and for the list (missing, or other text than the resolved line).
// A key that is a symbolic link, a hard link, not a regular file or over
// 1 MiB holds, as does a list file that isn't a regular file of its own
// (a symbolic link there drifts: the write replaces it), a source line
// that didn't read, and any read that gave no answer. Every verdict read
// carries the pin; a drifted one's Seen is what was read (the key's
// blake3, the list's SHA-512), so a plan is held to it.
func (d *AptRepo) Verdict(a []detect.Answer) detect.Result {
	if len(a) != 3 {
		return detect.Holding(fmt.Sprintf("%d answers for the apt_repo's 3 reads", len(a)))
	}
	line, reason := d.line(a[2])
	if reason != "" {
		return detect.Holding(reason)
	}
	keySum, reason := d.key(a[0])
	if reason != "" {
		return detect.Holding(reason)
	}
	list, listSum, reason := d.list(a[1], line)
	if reason != "" {
		return detect.Holding(reason)
	}
	var r detect.Result
	switch {
	case keySum == "" && listSum == "":
		r = detect.Absent()
	case keySum == d.Pin && list == nil:
		r = detect.Converged()
	default:
		var drift []observation.Difference
		if keySum != d.Pin {
			drift = append(drift, d.keyDrift(keySum))
		}
		if list != nil {
			drift = append(drift, *list)
		}
		r = detect.Drifted(drift)
		r.Seen = keySum + " " + listSum
	}
	r.Pin = d.Pin
	return r
}

// keyDrift is the key's difference: missing, or bytes whose blake3 sum
// isn't the pin.
func (d *AptRepo) keyDrift(sum string) observation.Difference {
	desired := "the pinned key (blake3 " + d.Pin + ")"
	if sum == "" {
		return observation.Difference{Field: FieldKey, Observed: "missing", Desired: desired}
	}
	return observation.Difference{Field: FieldKey, Observed: "signing key differs from its pin (observed blake3 " + sum + ")", Desired: desired}
}

// key reads the key's content answer: the blake3 of its bytes, "" when
// nothing is there, or a reason to hold.
func (d *AptRepo) key(a detect.Answer) (string, string) {
	at := "the signing key " + d.KeyPath
	switch a.Status {
	case detect.StatusOK:
	case detect.StatusMissing:
		return "", ""
	case detect.StatusNotRegular:
		return "", fmt.Sprintf("%s is %s, not a regular file, so Zap doesn't compare it with its pin", at, a.Type.Describe())
	case detect.StatusHardLinked:
		return "", fmt.Sprintf("%s has %d hard links, so Zap doesn't read it: replace it with a copy of its own (a single link)", at, a.Links)
	default:
		return "", detect.Problem(a, at, 0)
	}
	if a.Over {
		return "", fmt.Sprintf("%s is over %d KiB, so Zap doesn't compare it with its pin", at, vocab.AptKeyLimit>>10)
	}
	sum := blake3.Sum256([]byte(a.Content))
	got := hex.EncodeToString(sum[:])
	if got == d.Pin && !d.cached && d.Remember != nil {
		d.Remember(d.Pin, []byte(a.Content))
	}
	return got, ""
}

// list reads the list file's content answer against the resolved line:
// its difference (nil when it holds the line), the SHA-512 of what it
// holds ("" when nothing is there), or a reason to hold.
func (d *AptRepo) list(a detect.Answer, line string) (*observation.Difference, string, string) {
	want := "the source line: " + line
	switch a.Status {
	case detect.StatusOK:
	case detect.StatusMissing:
		return &observation.Difference{Field: FieldList, Observed: "missing", Desired: want}, "", ""
	case detect.StatusNotRegular:
		if a.Type != detect.TypeSymlink {
			return nil, "", fmt.Sprintf("%s is %s, not a regular file", d.ListFile, a.Type.Describe())
		}
		// Something is there: not absent, and nothing to digest.
		return &observation.Difference{Field: FieldList, Observed: "a symbolic link", Desired: want}, "symlink", ""
	case detect.StatusHardLinked:
		return nil, "", fmt.Sprintf("%s has %d hard links, so Zap doesn't read it: replace it with a copy of its own (a single link)", d.ListFile, a.Links)
	default:
		return nil, "", detect.Problem(a, d.ListFile, 0)
	}
	sum := sha512.Sum512([]byte(a.Content))
	if !a.Over && a.Content == line+"\n" {
		return nil, hex.EncodeToString(sum[:]), ""
	}
	return &observation.Difference{Field: FieldList, Observed: "other lines", Desired: want}, hex.EncodeToString(sum[:]), ""
}

// line reads the apt-source probe: the line as the target's shell reads
// it, its trailing line breaks dropped (as the write's command
// substitution drops them), or a reason to hold.
func (d *AptRepo) line(a detect.Answer) (string, string) {
	what := "the source line with /etc/os-release sourced"
	if a.Status != detect.StatusOK {
		return "", detect.Problem(a, what, vocab.ProbeTimeout)
	}
	if a.Exit != 0 {
		return "", fmt.Sprintf("reading %s exited %d: /etc/os-release can't be read, or the line doesn't read in a shell", what, a.Exit)
	}
	line := strings.TrimRight(a.Output, "\n")
	if len(line)+1 > ListLimit {
		return "", fmt.Sprintf("%s is over %d KiB", what, ListLimit>>10)
	}
	return line, ""
}
