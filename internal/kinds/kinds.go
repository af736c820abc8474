// Package kinds is the list of the resource kinds this zap acts on, and the
// lookup every stage goes through: detection (Of(r).Detect), planning
// (Steps), the preview (Declared) and the front end's sudo warm-up and
// value checks. A kind the declaration knows but no package here provides
// (apt_repo, database, build today) is read as held: Of returns a kind whose
// detector holds, naming the kind, so it is never planned.
//
// Adding a kind is its wire form in pkg/declaration (kind_<name>.go and its
// line in bodies), its package under internal/kind, and one line in all.
package kinds

import (
	"fmt"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/internal/kind/directory"
	"github.com/zap-go/zap/internal/kind/file"
	"github.com/zap-go/zap/internal/kind/firewall"
	"github.com/zap-go/zap/internal/kind/installer"
	"github.com/zap-go/zap/internal/kind/link"
	"github.com/zap-go/zap/internal/kind/pipeline"
	"github.com/zap-go/zap/internal/kind/pkg"
	"github.com/zap-go/zap/internal/kind/script"
	"github.com/zap-go/zap/internal/kind/service"
	"github.com/zap-go/zap/internal/kind/swap"
	"github.com/zap-go/zap/internal/kind/user"
	"github.com/zap-go/zap/internal/kind/verify"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// all are the kinds this zap acts on, one line each.
var all = []kind.Kind{
	file.Kind{},
	directory.Kind{},
	link.Kind{},
	script.Kind{},
	pkg.Kind{},
	installer.Kind{},
	user.Kind{},
	service.Kind{},
	swap.Kind{},
	firewall.Kind{},
	verify.Kind{},
	pipeline.Kind{},
}

var byType = func() map[declaration.Kind]kind.Kind {
	m := make(map[declaration.Kind]kind.Kind, len(all))
	for _, k := range all {
		if m[k.Type()] != nil {
			panic("kinds: " + string(k.Type()) + " is listed twice")
		}
		m[k.Type()] = k
	}
	return m
}()

// Of returns the kind of r, by its type: a kind this zap can't act on yet
// when none is listed.
func Of(r *declaration.Resource) kind.Kind {
	if k := byType[r.Type]; k != nil {
		return k
	}
	return unread(r.Type)
}

// Known reports whether this zap acts on resources of type t.
func Known(t declaration.Kind) bool { return byType[t] != nil }

// unread is a kind the declaration accepts and this zap can't read: every
// resource of it holds, so nothing plans it.
type unread declaration.Kind

func (u unread) Type() declaration.Kind { return declaration.Kind(u) }

func (u unread) Detect(*declaration.Resource, detect.Env) detect.Detector {
	return detect.Held(fmt.Sprintf("this zap can't read %s resources yet", string(u)))
}

func (u unread) Steps(r *declaration.Resource, _ kind.Planned) ([]plan.Step, error) {
	return nil, fmt.Errorf("resource %q: type: no steps for a %q", r.ID, r.Type)
}

func (unread) Declared(*declaration.Resource) []kind.Line { return nil }

// RunsAs: root, as far as anyone knows.
func (unread) RunsAs() plan.Privilege { return plan.Root }
