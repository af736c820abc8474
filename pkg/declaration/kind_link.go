package declaration

import (
	"strings"

	"github.com/zap-go/zap/internal/strict"
)

// Link is a symbolic link at Path pointing to Target.
type Link struct {
	Path   Text `json:"path"`
	Target Text `json:"target"`
}

func (x *Link) decode(f *strict.Fields) {
	f.Req("path", &x.Path)
	f.Req("target", &x.Target)
}

func (x *Link) check() *fieldMsg {
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

func (x *Link) flat(c Common) any {
	return struct {
		Common
		*Link
	}{c, x}
}

func (x *Link) clone() spec { return clonePtr(x) }

func (x *Link) texts(out map[string]Text) {
	out["path"] = x.Path
	out["target"] = x.Target
}
