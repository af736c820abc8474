package file

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/zap-go/zap/internal/detect"

	"github.com/zeebo/blake3"

	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// RemoteFile detects a file whose content is fetched and placed whole
// (extract none). Detection never fetches: the target's SHA-512 is compared
// with the pinned bytes' when the operator's content cache holds them
// (Pin.SHA512); when it doesn't, the target's own bytes are read back
// (a content read, at most ContentLimit of them, of a regular file of its
// own only) and their blake3 compared with the pin, and on a match Remember
// puts them in the cache, so the next pass compares digests.
type RemoteFile struct {
	File
	Pin detect.Pin
	// Remember adds bytes read back from the target, which hashed to pin,
	// to the content cache; nil keeps nothing.
	Remember func(pin string, data []byte)
	// Cached reads the pinned bytes from the content cache for a diff, at
	// most limit+1 of them; nil: a diff shows none.
	Cached func(pin string, limit int) ([]byte, bool)
}

// Queries: the file's digest, type and (when attributes are declared)
// lstat, and the read-back of its bytes when the cache doesn't hold the
// pinned ones.
func (f *RemoteFile) Queries() []detect.Query { return append(f.reads(), f.Text.queries(&f.File)...) }

// reads are the queries the verdict is made from.
func (f *RemoteFile) reads() []detect.Query {
	q := f.File.reads()
	if f.Pin.SHA512 == "" {
		q = append(q, detect.Query{Op: detect.OpContent, Lane: observation.LaneElevated, Path: f.Path, Limit: detect.ContentLimit})
	}
	return q
}

// Verdict: the rules of a file (absent, a link drifts, anything else there
// holds), its content compared with the pin by SHA-512 or, uncached, by
// the blake3 of the bytes read back.
func (f *RemoteFile) Verdict(a []detect.Answer) detect.Result {
	if len(a) != len(f.Queries()) {
		return detect.Holding(fmt.Sprintf("%d answers for %d reads of %s", len(a), len(f.Queries()), f.Shown))
	}
	n := len(f.reads())
	r := withPin(f.verdict(a[:n]), f.Pin)
	if f.Text != nil {
		f.Text.show(&f.File, &r, a[:n], a[n:], f.cached())
	}
	return r
}

// cached is the desired side of a diff of remote content: the pinned bytes
// the content cache holds, or why there are none to show.
func (f *RemoteFile) cached() *desired {
	if f.Cached == nil {
		return &desired{reason: "the pinned bytes aren't in the content cache (a dry zap apply fetches them)"}
	}
	b, ok := f.Cached(f.Pin.Blake3, detect.TextLimit)
	switch {
	case !ok:
		return &desired{reason: "the pinned bytes aren't in the content cache (a dry zap apply fetches them)"}
	case len(b) > detect.TextLimit && f.Pin.SHA512 != "":
		return &desired{bytes: b[:detect.TextLimit], size: int64(len(b)), sha512: f.Pin.SHA512}
	case len(b) > detect.TextLimit:
		return &desired{reason: "the pinned bytes are more than a diff shows"}
	}
	return &desired{bytes: b}
}

// withPin is r carrying the pin it was compared against, unless it holds.
func withPin(r detect.Result, pin detect.Pin) detect.Result {
	if r.Verdict != observation.Undetermined {
		r.Pin = pin.Blake3
	}
	return r
}

func (f *RemoteFile) verdict(a []detect.Answer) detect.Result {
	if len(a) != len(f.reads()) {
		return detect.Holding(fmt.Sprintf("%d answers for %d reads of %s", len(a), len(f.reads()), f.Shown))
	}
	digest := a[0]
	if r, done := f.regular(a); done {
		return r
	}
	var drift []observation.Difference
	if f.Pin.SHA512 == "" {
		d, reason := f.readBack(a[len(a)-1])
		if reason != "" {
			return detect.Holding(reason)
		}
		drift = append(drift, d...)
	} else if digest.SHA512 != f.Pin.SHA512 {
		drift = append(drift, f.differs("sha512 "+digest.SHA512))
	}
	if f.Attrs.Declared() {
		st := a[2]
		if st.Status != detect.StatusOK || st.Type != detect.TypeRegular {
			return detect.Restat(st, f.Shown, "regular file")
		}
		drift = append(drift, f.Attrs.Diff(st)...)
	}
	if len(drift) == 0 {
		return detect.Converged()
	}
	r := detect.Drifted(drift)
	r.Seen = digest.SHA512
	return r
}

// readBack compares the bytes read back from the target with the pin: no
// difference, and the bytes remembered, when they hash to it.
func (f *RemoteFile) readBack(c detect.Answer) ([]observation.Difference, string) {
	switch c.Status {
	case detect.StatusOK:
	case detect.StatusNotRegular, detect.StatusHardLinked, detect.StatusMissing:
		return nil, fmt.Sprintf("%s changed while it was read: its bytes can't be read back to compare with the pin", f.Shown)
	default:
		return nil, detect.Problem(c, "the bytes of "+f.Shown, 0)
	}
	if c.Over {
		// More than a read-back takes: not known to be the pinned bytes,
		// so the change places them (and fetching them fills the cache).
		return []observation.Difference{f.differs(fmt.Sprintf("more than %d bytes, not read back: the content cache doesn't hold the pinned bytes", detect.ContentLimit))}, ""
	}
	sum := blake3.Sum256([]byte(c.Content))
	got := hex.EncodeToString(sum[:])
	if got != f.Pin.Blake3 {
		return []observation.Difference{f.differs("blake3 " + got)}, ""
	}
	if f.Remember != nil {
		f.Remember(f.Pin.Blake3, []byte(c.Content))
	}
	return nil, ""
}

// differs is the content difference of bytes that aren't the pin's.
func (f *RemoteFile) differs(observed string) observation.Difference {
	return observation.Difference{Field: "content", Observed: "remote content differs from its pin (observed " + observed + ")", Desired: "pin blake3 " + f.Pin.Blake3}
}

// Sentinel is the name of the file an extracted tree holds at its top, its
// provenance (RemoteProvenance) on one line.
const Sentinel = ".zap_remote_hash"

// SentinelLimit is how much of a sentinel detection reads; one longer
// drifts.
const SentinelLimit = 4096

// remoteTag opens the bytes a remote provenance hashes.
const remoteTag = "zap remote_file extract v1"

// RemoteProvenance is what an extracted tree's sentinel holds: 64
// lowercase hex digits, the blake3 of a fixed tag and version, the pin, the
// extract form and its strip_components (0 when unset), each on a line of
// its own. A new pin or a new extract form or strip count reads as drift.
func RemoteProvenance(pin string, e *declaration.Extract) string {
	form, strip := "none", 0
	if e != nil {
		form = string(e.Type)
		if e.StripComponents != nil {
			strip = *e.StripComponents
		}
	}
	h := blake3.New()
	h.WriteString(remoteTag + "\n" + pin + "\n" + form + "\n" + strconv.Itoa(strip) + "\n")
	return hex.EncodeToString(h.Sum(nil))
}

// RemoteTree detects a directory extracted from a fetched archive (extract
// tar.gz or tar.xz) through its sentinel: the path's own type and
// attributes (lstat), the sentinel's first SentinelLimit bytes, and whether
// the directory is empty.
type RemoteTree struct {
	Path, Shown string
	Attrs       detect.Attrs
	Pin         detect.Pin
	// Want is the desired provenance (RemoteProvenance).
	Want string
}

// emptyProbe prints empty, full or none: whether path is a directory (not
// a link) holding nothing, anything, or isn't one at all.
func emptyProbe(path string) string {
	p := vocab.Quote(path)
	return "if [ -d " + p + " ] && ! [ -h " + p + " ]; then if [ -z \"$(ls -A -- " + p + " | head -n 1)\" ]; then echo empty; else echo full; fi; else echo none; fi"
}

// Queries: the lstat, the sentinel and the emptiness probe, elevated.
func (t *RemoteTree) Queries() []detect.Query {
	return []detect.Query{
		{Op: detect.OpStat, Lane: observation.LaneElevated, Path: t.Path},
		{Op: detect.OpContent, Lane: observation.LaneElevated, Path: t.Path + "/" + Sentinel, Limit: SentinelLimit},
		detect.NewProbe(observation.LaneElevated, emptyProbe(t.Path)),
	}
}

// Verdict: nothing there is absent; a link or anything but a directory
// holds; a directory with Zap's sentinel is compared by it (and by the
// declared attributes); one without reads absent when it is empty and
// holds otherwise, since Zap replaces only a tree it extracted.
func (t *RemoteTree) Verdict(a []detect.Answer) detect.Result { return withPin(t.verdict(a), t.Pin) }

func (t *RemoteTree) verdict(a []detect.Answer) detect.Result {
	if len(a) != 3 {
		return detect.Holding(fmt.Sprintf("%d answers for 3 reads of %s", len(a), t.Shown))
	}
	st, sent, empty := a[0], a[1], a[2]
	switch st.Status {
	case detect.StatusOK:
	case detect.StatusMissing:
		return detect.Absent()
	default:
		return detect.Holding(detect.Problem(st, t.Shown, 0))
	}
	switch st.Type {
	case detect.TypeDirectory:
	case detect.TypeSymlink:
		return detect.Holding(fmt.Sprintf("%s is a symbolic link: nothing is extracted through it", t.Shown))
	default:
		return detect.Holding(fmt.Sprintf("%s is %s, not a directory to extract into", t.Shown, st.Type.Describe()))
	}
	if sent.Status != detect.StatusOK {
		switch sent.Status {
		case detect.StatusMissing, detect.StatusNotRegular, detect.StatusHardLinked:
		default:
			return detect.Holding(detect.Problem(sent, "the sentinel "+t.Shown+"/"+Sentinel, 0))
		}
		// No sentinel of Zap's (a link there counts as none).
		if empty.Status != detect.StatusOK || empty.Exit != 0 {
			return detect.Holding(detect.Problem(empty, "whether "+t.Shown+" is empty", 0))
		}
		switch strings.TrimSpace(empty.Output) {
		case "empty":
			return detect.Absent()
		case "full":
			return detect.Holding(fmt.Sprintf("%s holds files Zap didn't extract (no %s of its own there), so Zap won't replace it", t.Shown, Sentinel))
		}
		return detect.Holding(fmt.Sprintf("%s changed while it was read", t.Shown))
	}
	var drift []observation.Difference
	got := strings.TrimSpace(sent.Content)
	switch {
	case sent.Over:
		drift = append(drift, t.differs(fmt.Sprintf("a sentinel over %d bytes", SentinelLimit)))
	case got != t.Want:
		drift = append(drift, t.differs("provenance "+shortSentinel(got)))
	}
	drift = append(drift, t.Attrs.Diff(st)...)
	if len(drift) > 0 {
		return detect.Drifted(drift)
	}
	return detect.Converged()
}

func (t *RemoteTree) differs(observed string) observation.Difference {
	return observation.Difference{Field: "content", Observed: "extracted from another pin or extract form (" + observed + ")", Desired: "pin blake3 " + t.Pin.Blake3 + ", provenance " + t.Want}
}

// shortSentinel is a sentinel's text as a difference shows it: a
// provenance's form when it has one, else its length.
func shortSentinel(s string) string {
	if len(s) == 64 && strings.Trim(s, "0123456789abcdef") == "" {
		return s
	}
	return fmt.Sprintf("%d bytes that aren't one", len(s))
}

// Placement is the tree's path, owner and group.
func (t *RemoteTree) Placement() (string, string, string) {
	return t.Path, t.Attrs.Owner, t.Attrs.Group
}

// newRemote makes the detector of a file with remote content at path.
func newRemote(f *declaration.File, path, shown string, env detect.Env) detect.Detector {
	r := env.Resource
	if r == nil || declaration.BodyOf[*declaration.File](r) != f {
		r = &declaration.Resource{Body: f}
	}
	fetched, ok := r.Fetched()
	if !ok {
		return detect.Held("content.url: the remote content names no url")
	}
	pin := env.PinOf(r, fetched)
	if pin.Hold != "" {
		return detect.Held(pin.Hold)
	}
	attrs := detect.Attrs{Mode: f.Mode, Owner: f.Owner, Group: f.Group}
	if e := fetched.Extract; e != nil && e.Type != declaration.ExtractNone {
		return &RemoteTree{Path: path, Shown: shown, Attrs: attrs, Pin: pin, Want: RemoteProvenance(pin.Blake3, e)}
	}
	out := &RemoteFile{File: File{Path: path, Shown: shown, Attrs: attrs}, Pin: pin, Remember: env.Remember, Cached: env.Cached}
	if env.Diff {
		out.Text = textDiff(env, shown, "remote "+fetched.URL.String(), nil, nil)
	}
	return out
}
