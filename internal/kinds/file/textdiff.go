package file

import (
	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/mask"
	"github.com/zap-go/zap/pkg/observation"
)

// TextDiff is what a file's content diff (zap plan --diff) is made from
// besides the reads: the labels, the desired bytes when they are known
// before anything is read, and what masks a secret. A file's detector that
// has one reads the text at the path (and a source's) in the same batch as
// its verdict, and the Result carries the two sides (DiffSides); the
// verdict is made from the other reads alone, so a diff never changes it.
type TextDiff struct {
	// From and To label the diff's --- and +++ sides: the path on the
	// target, and where the content comes from in the config.
	From, To string
	// Desired is the content a change writes, for inline and template
	// content; nil for source content (read on the target) and remote
	// content (from the content cache).
	Desired []byte
	// Secrets are the values of the secret references the content takes.
	Secrets []string
	// Mask masks every secret the pass resolved.
	Mask *mask.Masker
	// Fingerprint keys a SHA-512 for the line that stands for a diff
	// withheld (Fingerprint with the operator's key); nil: sizes only.
	Fingerprint func(sha512hex string) string
}

// desired is the desired side of a diff when it isn't TextDiff.Desired:
// the bytes, or their size and SHA-512 when they weren't read whole, or
// why they can't be shown.
type desired struct {
	bytes  []byte
	size   int64
	sha512 string
	reason string
}

// queries are the text reads a diff of f needs: the path's, and the
// source's for source content. None without a TextDiff.
func (t *TextDiff) queries(f *File) []detect.Query {
	if t == nil {
		return nil
	}
	q := []detect.Query{{Op: detect.OpText, Lane: observation.LaneElevated, Path: f.Path, Limit: detect.TextLimit}}
	if f.Source != "" {
		q = append(q, detect.Query{Op: detect.OpText, Lane: observation.LaneElevated, Path: f.Source, Limit: detect.TextLimit})
	}
	return q
}

// show sets r's diff for f from the verdict's reads and the text reads'
// answers: its DiffSides, or its Diff when a line stands for it (why it
// isn't shown), or nothing when there is none to show (no TextDiff,
// nothing about the content to change). want is the desired side when
// TextDiff.Desired doesn't say it (remote content); nil takes the source's
// text read, or Desired.
func (t *TextDiff) show(f *File, r *detect.Result, reads, texts []detect.Answer, want *desired) {
	if t == nil || len(texts) == 0 {
		return
	}
	if d, in := t.sides(f, *r, reads, texts, want); d != "" {
		r.Diff = d
	} else {
		r.DiffSides = in
	}
}

// sides are show's: the line that stands for a diff, or its sides (nil
// for none).
func (t *TextDiff) sides(f *File, r detect.Result, reads, texts []detect.Answer, want *desired) (string, *detect.DiffSides) {
	in := &detect.DiffSides{From: t.From, To: t.To, Mask: t.Mask, Secrets: t.Secrets, Fingerprint: t.Fingerprint}
	switch {
	case r.Verdict == observation.Absent:
		in.Absent = true
	case r.Verdict != observation.Drifted:
		return "", nil
	case hasDrift(r, "type"):
		return "not shown: a symbolic link is at the path, and Zap reads nothing through it\n", nil
	case !hasDrift(r, "content"):
		return "", nil
	default:
		cur, reason := textOf(texts[0], reads[0].SHA512)
		if reason != "" {
			return "not shown: the text at the path " + reason + "\n", nil
		}
		in.Current, in.Size, in.CurrentSHA512 = cur.bytes, cur.size, cur.sha512
	}
	switch {
	case want != nil:
	case f.Source != "" && len(texts) > 1:
		w, reason := textOf(texts[1], reads[len(reads)-1].SHA512)
		if reason != "" {
			return "not shown: the source's text " + reason + "\n", nil
		}
		want = &w
	default:
		want = &desired{bytes: t.Desired}
	}
	if want.reason != "" {
		return "not shown: " + want.reason + "\n", nil
	}
	in.Desired, in.DesiredSize, in.DesiredSHA512 = want.bytes, want.size, want.sha512
	return "", in
}

// textOf is the side of a diff a text read found, checked against sum,
// the SHA-512 detection's digest read found at the same path, or why it
// can't be shown: bytes that aren't the ones detection read (a file that
// changed, or something swapped in between the reads) are never shown.
func textOf(a detect.Answer, sum string) (desired, string) {
	switch {
	case a.Status == detect.StatusOK && a.Over:
		return desired{size: a.Size, sha512: sum}, ""
	case a.Status == detect.StatusOK && sum != "" && sha512Hex(a.Content) == sum:
		return desired{bytes: []byte(a.Content)}, ""
	case a.Status == detect.StatusOK:
		return desired{}, "changed while it was read"
	case a.Status == detect.StatusNotRegular && a.Type == detect.TypeSymlink:
		return desired{}, "is a symbolic link now, and Zap reads nothing through it"
	case a.Status == detect.StatusFailed && a.Detail != "":
		return desired{}, "wasn't read: " + a.Detail
	}
	return desired{}, "wasn't read (" + string(a.Status) + ")"
}

// hasDrift reports whether r's drift has field.
func hasDrift(r detect.Result, field string) bool {
	for _, d := range r.Drift {
		if d.Field == field {
			return true
		}
	}
	return false
}
