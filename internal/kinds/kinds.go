// Package kinds is the list of the resource kinds this zap acts on, and the
// lookup every stage goes through: detection (Of(r).Detect), planning
// (Steps), the preview (Declared) and the front end's sudo warm-up and
// value checks. A kind the declaration knows but no kind here provides
// (none today) is read as held: Of returns a kind whose detector holds,
// naming the kind, so it is never planned.
//
// # Where a kind lives
//
// Every kind is a folder, internal/kinds/<kind> (package <kind>: apt_repo
// is aptrepo, package is pkg), holding all of it but its wire form: its
// reads (the detector), its steps and the names they share with the reads
// (its operations, the parts of its drift), its preview lines, its
// operations' scripts (scripts/*.sh and scripts/lib/*.sh, embedded) and
// wordings, which byType hands internal/ops and internal/ops/opcmd, the
// texts its operations write that their = lines don't show (kind.Def's
// Text, which byType adds to BodyOf's), its reference prose (doc.md,
// embedded by doc.go as kind.Def's Doc: zap doc and docs/kinds/ add the
// schema's fields to it, internal/refdoc), and their tests. It exports one
// kind.Def, Kind, and registering it is its line in all. motd, a kind a
// test build alone carries (listed in testonly_on.go), holds its wire
// body too and registers it (declaration.Register).
//
// What the planner or the executor shares with a kind stays where both
// reach it, below the kinds:
//
//   - internal/vocab: the package install batches' operations (the planner
//     merges every package's into one batch per manager), the pending-trigger
//     ledger's operations and the service managers' names (the trigger model
//     in the planner marks what a service is owed, for every kind that
//     triggers one), build's operation name and arguments (the executor
//     appends the source archive to them, ops streams the operation, the
//     lock's pinning bounds the source), and the limits and quoting every kind
//     uses.
//   - internal/ops/scripts: the scripts of those shared operations, put and
//     put-stream (a file's, and build's provenance sidecar's; the executor
//     picks put-stream for content too large to hold), read, and the
//     shared parts (scripts/lib) a kind's script includes (as, which the
//     user kind's detector reads as it starts, before any kind is
//     registered, among them).
//   - opcmd: the wording of the package operations (Forms), which a test holds
//     to their scripts, and FileWho, which words the file operations (put,
//     dir, link, extract) for render and execute alike.
//   - pkg/plan: the file operations' names (OpPut, OpDir, OpLink,
//     OpExtract), which internal/localops performs natively and
//     internal/ops/asroot and internal/sshhost run by their scripts.
//   - internal/detect: what detectors share: the queries and answers, how
//     a field resolves, and the attributes a file and a directory compare
//     (Attrs, Restat; their preview lines are kind.Perms).
//
// The wire form (the body's type, its form checks, its texts, its clone
// and its canonical encoding) stays in pkg/declaration, kind_<name>.go,
// listed in its bodies: pkg/declaration is the declaration format's public
// reader and must decode every kind with nothing registered first, its
// form checks and fast canonical encoding share that package's unexported
// helpers, and its own tests build every kind. A kind folder imports
// pkg/declaration, never the reverse, so there is no cycle. What crosses
// kinds (triggers, credentials, the paths a kind manages, what it fetches)
// is a method of the body there, read through the resource
// (declaration.Resource.TriggerEdges, Fetched, ...); no package outside
// pkg/declaration and the kind folders names a concrete body
// (TestBodiesStayInTheirKinds holds that).
package kinds

import (
	"fmt"
	"slices"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/internal/kinds/aptrepo"
	"github.com/zap-go/zap/internal/kinds/build"
	"github.com/zap-go/zap/internal/kinds/database"
	"github.com/zap-go/zap/internal/kinds/directory"
	"github.com/zap-go/zap/internal/kinds/file"
	"github.com/zap-go/zap/internal/kinds/firewall"
	"github.com/zap-go/zap/internal/kinds/installer"
	"github.com/zap-go/zap/internal/kinds/link"
	"github.com/zap-go/zap/internal/kinds/pipeline"
	"github.com/zap-go/zap/internal/kinds/pkg"
	"github.com/zap-go/zap/internal/kinds/script"
	"github.com/zap-go/zap/internal/kinds/service"
	"github.com/zap-go/zap/internal/kinds/swap"
	"github.com/zap-go/zap/internal/kinds/user"
	"github.com/zap-go/zap/internal/kinds/verify"
	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/internal/ops/opcmd"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// all are the kinds this zap acts on, one line each: its body's type, its
// detector, its steps, its preview lines, as whom it runs and the texts of
// it that reach a shell (kind.Def).
var all = []kind.Kind{
	file.Kind,
	directory.Kind,
	link.Kind,
	script.Kind,
	pkg.Kind,
	installer.Kind,
	user.Kind,
	service.Kind,
	swap.Kind,
	firewall.Kind,
	database.Kind,
	verify.Kind,
	pipeline.Kind,
	aptrepo.Kind,
	build.Kind,
}

// byType finds a listed kind by its type. Building it hands each kind's
// own scripts to internal/ops.
var byType = func() map[declaration.Kind]kind.Kind {
	m := make(map[declaration.Kind]kind.Kind, len(all)+len(testOnly))
	for _, k := range slices.Concat(all, testOnly) {
		if m[k.Type()] != nil {
			panic("kinds: " + string(k.Type()) + " is listed twice")
		}
		m[k.Type()] = k
		if x, ok := k.(kind.Texted); ok {
			for name, f := range x.Texts() {
				if bodies[name] != nil {
					panic("kinds: " + string(name) + "'s text is given twice")
				}
				bodies[name] = f
			}
		}
		if s, ok := k.(kind.Scripted); ok && s.Scripts() != nil {
			for _, name := range ops.Register(s.Scripts()) {
				if s.OpWord() != nil {
					opcmd.Register(name, s.OpWord())
				}
			}
		}
	}
	return m
}()

// Body is text one of a kind's operations writes that its = line doesn't
// show (kind.Body).
type Body = kind.Body

// bodies word the operations that have a Body, by name: those of a kind
// that keeps its texts in its folder (kind.Def's Text) are added as byType
// is built; the others are their kind's, in its file here.
var bodies = map[plan.OpName]func(args []string) (Body, bool){}

// Digest describes text by its length and the start of its SHA-512, as a
// file's preview describes its content (file.Digest): the plan prints a
// Body's text under it.
func Digest(text string) string { return file.Digest(text) }

// BodyOf returns the text op writes that its = line doesn't show, and
// whether there is any.
func BodyOf(op *plan.Op) (Body, bool) {
	if f := bodies[op.Name]; f != nil {
		return f(op.Args)
	}
	return Body{}, false
}

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

// Stateless: no, it is never planned.
func (unread) Stateless() bool { return false }
