package evaluate

import (
	"strings"

	"github.com/zap-go/zap/pkg/declaration"
)

// Evaluation is what a config declared, and where.
type Evaluation struct {
	Decl *declaration.Declaration
	// Files are the project files the config read for content, sorted by
	// path.
	Files []FileRead

	pos *positions
	// sites[i] is the call that declared Decl.Resources[i].
	sites              []site
	targetAt, deployAt site
}

// Check runs the declaration's form checks and structural gate
// (declaration.Problems) and returns every problem they find, the first
// MaxErrors of them, each placed where the config declared what is at
// fault: the field's key when the call's argument is an object literal
// that holds it, else the call (zap.file(...)); nil when there is none.
func (ev *Evaluation) Check() error {
	list, total := ev.Decl.Problems(MaxErrors)
	out := make([]*Error, 0, len(list))
	for _, p := range list {
		out = append(out, &Error{Pos: ev.where(p), Msg: p.Error()})
	}
	return join(out, total-len(list))
}

// where places the problem p in the config, or "".
func (ev *Evaluation) where(p *declaration.Error) string {
	i, ok := p.Resource()
	if !ok && p.ID != "" {
		i, ok = ev.byID(p.ID)
	}
	if ok && i < len(ev.sites) {
		field := p.Field
		if strings.HasPrefix(field, "resources[") {
			field = "id" // an id that isn't one
		}
		return ev.pos.field(ev.sites[i], field)
	}
	for _, b := range []struct {
		name string
		at   site
	}{{"target", ev.targetAt}, {"deploy", ev.deployAt}} {
		if p.Field == b.name {
			return ev.pos.field(b.at, "")
		}
		if rest, ok := strings.CutPrefix(p.Field, b.name+"."); ok {
			return ev.pos.field(b.at, rest)
		}
	}
	return ""
}

// byID returns the index of the first resource with the id id.
func (ev *Evaluation) byID(id string) (int, bool) {
	for i := range ev.Decl.Resources {
		if ev.Decl.Resources[i].ID == id {
			return i, true
		}
	}
	return 0, false
}
