package file

import (
	"crypto/sha512"
	"encoding/hex"
	"fmt"

	"github.com/zap-go/zap/internal/detect"

	"github.com/zap-go/zap/internal/template"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// File detects a file with inline or template content, whose desired digest
// is known before anything is read, or with source content, whose desired
// digest is the source file's. Every read is elevated: the content's
// digest, what the path leads to (consulted only when a symbolic link sits
// there), when a mode, owner or group is declared the path's own
// attributes, and for source content the source's digest.
type File struct {
	Path  string // resolved, absolute
	Shown string // the path as reasons name it
	// SHA512 is the hex digest of the desired content; Content describes
	// it for a difference ("inline (15 bytes)"). Both are empty for source
	// content.
	SHA512  string
	Content string
	Attrs   detect.Attrs
	// Source is a source file's resolved path, whose digest is the desired
	// one, and SourceShown the path as reasons name it; "" for other
	// content.
	Source      string
	SourceShown string
	// Text, when set, reads the bytes a diff of the content shows (zap
	// plan --diff) in the same batch, and the Result carries the diff.
	Text *TextDiff
}

// Queries: the digest, the followed type, the lstat when attributes are
// declared, and the source's digest for source content; then, for a diff,
// the text reads.
func (f *File) Queries() []detect.Query { return append(f.reads(), f.Text.queries(f)...) }

// reads are the queries the verdict is made from.
func (f *File) reads() []detect.Query {
	q := []detect.Query{
		{Op: detect.OpDigest, Lane: observation.LaneElevated, Path: f.Path},
		{Op: detect.OpType, Lane: observation.LaneElevated, Path: f.Path},
	}
	if f.Attrs.Declared() {
		q = append(q, detect.Query{Op: detect.OpStat, Lane: observation.LaneElevated, Path: f.Path})
	}
	if f.Source != "" {
		q = append(q, detect.Query{Op: detect.OpDigest, Lane: observation.LaneElevated, Path: f.Source})
	}
	return q
}

// source reads the desired digest from the source's digest answer: a
// regular file of its own, or a reason to hold.
func (f *File) source(a detect.Answer) (string, string) {
	at := "the source " + f.SourceShown
	switch a.Status {
	case detect.StatusOK:
		return a.SHA512, ""
	case detect.StatusMissing:
		return "", at + " doesn't exist, or can't be read"
	case detect.StatusNotRegular:
		return "", fmt.Sprintf("%s is %s, not a regular file of its own, so Zap doesn't read it", at, a.Type.Describe())
	case detect.StatusHardLinked:
		return "", fmt.Sprintf("%s has %d hard links, so Zap doesn't read it: replace it with a copy of its own (a single link)", at, a.Links)
	}
	return "", detect.Problem(a, at, 0)
}

// Verdict: nothing at the path is absent; a regular file of its own is
// compared by digest and, when declared, by mode, owner and group (a
// drifted one's digest is the Result's Seen); a
// symbolic link to a regular file drifts (the write replaces it); anything
// else there, a file with a second name, or a read that failed, holds.
func (f *File) Verdict(a []detect.Answer) detect.Result {
	if len(a) != len(f.Queries()) {
		return detect.Holding(fmt.Sprintf("%d answers for %d reads of %s", len(a), len(f.Queries()), f.Shown))
	}
	n := len(f.reads())
	r := f.verdict(a[:n])
	f.Text.show(f, &r, a[:n], a[n:], nil)
	return r
}

// verdict is Verdict's from the answers of the reads alone.
func (f *File) verdict(a []detect.Answer) detect.Result {
	want, content := f.SHA512, f.Content
	if f.Source != "" {
		var reason string
		if want, reason = f.source(a[len(a)-1]); reason != "" {
			return detect.Holding(reason)
		}
		content = "source " + f.SourceShown
	}
	digest := a[0]
	if r, done := f.regular(a); done {
		return r
	}
	r := f.compare(a, digest, want, content)
	if r.Verdict == observation.Drifted {
		// What an update is planned from: the content there now.
		r.Seen = digest.SHA512
	}
	return r
}

// regular reads the digest answer a[0] (and, for a link, the type answer
// a[1]): done with the verdict unless a regular file of its own is there.
func (f *File) regular(a []detect.Answer) (detect.Result, bool) {
	digest := a[0]
	switch digest.Status {
	case detect.StatusOK:
		return detect.Result{}, false
	case detect.StatusMissing:
		return detect.Absent(), true
	case detect.StatusNotRegular:
		if digest.Type != detect.TypeSymlink {
			return detect.Holding(fmt.Sprintf("%s is %s, not a regular file", f.Shown, digest.Type.Describe())), true
		}
		return f.symlink(a[1]), true
	case detect.StatusHardLinked:
		return detect.Holding(fmt.Sprintf("%s has %d hard links, so Zap doesn't read it: replace it with a copy of its own (a single link)", f.Shown, digest.Links)), true
	}
	return detect.Holding(detect.Problem(digest, f.Shown, 0)), true
}

// compare is the verdict for a regular file of its own at the path, whose
// digest answer is digest: by content and, when declared, attributes.
func (f *File) compare(a []detect.Answer, digest detect.Answer, want, content string) detect.Result {
	var drift []observation.Difference
	if digest.SHA512 != want {
		drift = append(drift, observation.Difference{Field: "content", Observed: "differs", Desired: content})
	}
	if f.Attrs.Declared() {
		st := a[2]
		if st.Status != detect.StatusOK || st.Type != detect.TypeRegular {
			return detect.Restat(st, f.Shown, "regular file")
		}
		drift = append(drift, f.Attrs.Diff(st)...)
	}
	if len(drift) > 0 {
		return detect.Drifted(drift)
	}
	return detect.Converged()
}

// symlink is the verdict for a symbolic link at the file's path, from what
// the link leads to.
func (f *File) symlink(t detect.Answer) detect.Result {
	switch t.Status {
	case detect.StatusOK:
		if t.Type == detect.TypeRegular {
			return detect.Drifted([]observation.Difference{detect.SymlinkAt("regular file")})
		}
		return detect.Holding(fmt.Sprintf("%s is a symbolic link to %s, not a regular file", f.Shown, t.Type.Describe()))
	case detect.StatusMissing:
		return detect.Holding(fmt.Sprintf("%s is a dangling symbolic link, not a regular file", f.Shown))
	}
	return detect.Holding(detect.Problem(t, "what the symbolic link at "+f.Shown+" leads to", 0))
}

// Placement is the file's path, owner and group (detect.Placed).
func (f *File) Placement() (string, string, string) { return f.Path, f.Attrs.Owner, f.Attrs.Group }

// NewFile makes a file's detector, resolving its path, its content's
// source and its template's references from env; remote content is read
// against its pin (RemoteFile, RemoteTree).
func NewFile(f *declaration.File, env detect.Env) detect.Detector {
	path, shown, reason := detect.ResolvePath("path", f.Path, env)
	if reason != "" {
		return detect.Held(reason)
	}
	if f.Content.Type == declaration.ContentRemote {
		return newRemote(f, path, shown, env)
	}
	out := &File{Path: path, Shown: shown, Attrs: detect.Attrs{Mode: f.Mode, Owner: f.Owner, Group: f.Group}}
	c := f.Content
	switch c.Type {
	case declaration.ContentSource:
		if c.Path == nil {
			return detect.Held("content.path: the source content names no path")
		}
		out.Source, out.SourceShown, reason = detect.ResolvePath("content.path", *c.Path, env)
		if reason != "" {
			return detect.Held(reason)
		}
		out.Text = textDiff(env, shown, "source "+out.SourceShown, nil, nil)
		return out
	case declaration.ContentTemplate:
		if c.Template == nil {
			return detect.Held("content.template: the template content has no body")
		}
		// A reference's value that a template can't take holds the file,
		// naming the variable and the reference, never the value.
		content, err := template.Content(*c.Template, c.Vars, c.Kinds, func(name string) (string, bool) { return env.Value(name), true })
		if err != nil {
			return detect.Held(err.Error())
		}
		out.SHA512, out.Content = sha512Hex(content), fmt.Sprintf("template (%d bytes rendered)", len(content))
		out.Text = textDiff(env, shown, "template", []byte(content), templateSecrets(c.Vars, env))
		return out
	case declaration.ContentBytes:
		b, err := c.Bytes()
		if err != nil {
			return detect.Held("content.base64: " + err.Error())
		}
		out.SHA512, out.Content = sha512Hex(string(b)), fmt.Sprintf("bytes (%d bytes)", len(b))
		to := "bytes"
		if c.File != "" {
			to += " of " + c.File
		}
		out.Text = textDiff(env, shown, to, b, nil)
		return out
	}
	content := ""
	if c.Inline != nil {
		content = *c.Inline
	}
	out.SHA512, out.Content = sha512Hex(content), fmt.Sprintf("inline (%d bytes)", len(content))
	out.Text = textDiff(env, shown, "inline", []byte(content), nil)
	return out
}

// textDiff is what a diff of a file's content is made from when env asks
// for one (Env.Diff), else nil: the path as reasons show it, and to, where
// the content comes from.
func textDiff(env detect.Env, shown, to string, content []byte, secrets []string) *TextDiff {
	if !env.Diff {
		return nil
	}
	if content == nil {
		content = []byte{}
	}
	return &TextDiff{From: shown + " (target)", To: to + " (config)", Desired: content, Secrets: secrets, Mask: env.Mask, Fingerprint: env.Fingerprint}
}

// sha512Hex is the SHA-512 of s, in lowercase hex.
func sha512Hex(s string) string {
	sum := sha512.Sum512([]byte(s))
	return hex.EncodeToString(sum[:])
}

// templateSecrets are the values of the secret references a template's
// variables take.
func templateSecrets(vars map[string]declaration.Var, env detect.Env) []string {
	var out []string
	for _, v := range vars {
		if v.Text == nil {
			continue
		}
		for _, ref := range v.Text.Refs() {
			if env.Secret != nil && env.Secret(ref) {
				out = append(out, env.Value(ref))
			}
		}
	}
	return out
}
