package declaration

import (
	"path"
	"strings"
)

// Link is a symbolic link.
type Link struct {
	// Where the link is. Takes a reference and ~.
	Path Text `json:"path"`
	// What the link points to, resolved the same way.
	Target Text `json:"target"`
}

func (x *Link) CheckForm() *Finding {
	if err := checkPath(x.Path); err != nil {
		return fieldf("path", "%v", err)
	}
	t := x.Target
	if t.IsZero() {
		return fieldf("target", "is blank")
	}
	if err := oneLine(t.String()); err != nil {
		return fieldf("target", "%v", err)
	}
	if s := t.Parts()[0]; s.Env == "" && strings.HasPrefix(s.Lit, "-") {
		return fieldf("target", "begins with -")
	}
	return nil
}

func (x *Link) Clone() Body { return clonePtr(x) }

func (x *Link) Texts(out map[string]Text) {
	out["path"] = x.Path
	out["target"] = x.Target
}

func (x *Link) managedPath() Text { return x.Path }

// checkState refuses a link placed at a directory above StateDir, or
// leading into it or to a directory above it.
func (x *Link) checkState() *fieldMsg {
	if p, ok := literalAbs(x.Path); ok && isAboveState(p) {
		return fieldf("path", "a link at %s would replace a directory above %s, where Zap keeps its state", p, StateDir)
	}
	if t, ok := x.leadsTo(); ok && (underState(t) || isAboveState(t)) {
		return fieldf("target", "leads to %s, and a link can't lead into %s, where Zap keeps its state", t, StateDir)
	}
	return nil
}

// leadsTo is where x leads, cleaned, when that is known as written: an
// absolute target, or a relative one from a link at an absolute path.
func (x *Link) leadsTo() (string, bool) {
	t, ok := x.Target.Plain()
	if !ok {
		return "", false
	}
	if strings.HasPrefix(t, "/") {
		return path.Clean(t), true
	}
	if strings.HasPrefix(t, "~") || strings.HasPrefix(t, "$HOME") {
		return "", false
	}
	p, ok := literalAbs(x.Path)
	if !ok {
		return "", false
	}
	return path.Join(path.Dir(p), t), true
}

func (x *Link) appendCanonical(b []byte, r *Resource) ([]byte, bool) {
	b, comma := r.openDependsOn(b)
	b = member(b, comma, "id", r.ID)
	if r.Name != "" {
		b = member(b, true, "name", r.Name)
	}
	b = append(b, `,"path":`...)
	b = x.Path.appendCanonical(b)
	b = append(b, `,"target":`...)
	b = x.Target.appendCanonical(b)
	b = member(b, true, "type", string(r.Type))
	return append(b, '}'), true
}
