// Package kind is the contract one resource kind fulfils for the stages: how
// it is read (detection), what its change does (planning), and how the
// preview shows what it declares. A kind's wire form (its fields, decoding,
// form checks and canonical encoding) is pkg/declaration/kind_<name>.go; the
// rest is the kind's folder, internal/kinds/<name>, whose Def is listed
// once in internal/kinds.
//
// A kind's code may import the shared vocabulary (internal/vocab), the
// document packages (pkg/...), detect's queries and detectors, and pure
// helpers; nothing that does I/O, since the planner reaches every kind
// through internal/kinds and must stay a function of its input.
package kind

import (
	"fmt"
	"io/fs"
	"maps"
	"slices"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/escape"
	"github.com/zap-go/zap/internal/ops/opcmd"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// Kind is one resource kind.
type Kind interface {
	// Type is the kind's type in a declaration ("file", "service", ...).
	Type() declaration.Kind
	// Detect builds the detector that reads r on the target, resolving its
	// references and ~ from env. A value it can't use gives a detector that
	// holds, naming the field (detect.Held).
	Detect(r *declaration.Resource, env detect.Env) detect.Detector
	// Steps returns the steps of r's change. It is a function of r and at
	// alone; create and update share them, and references stay as written
	// (they resolve when the step runs).
	Steps(r *declaration.Resource, at Planned) ([]plan.Step, error)
	// Declared lists what r declares, one field a line, for the preview.
	// A value may span lines; the renderer escapes and indents it.
	Declared(r *declaration.Resource) []Line
	// RunsAs says as whom r's reads and steps run on a local target: the
	// sudo warm-up asks for root before a pass that may need it.
	RunsAs() plan.Privilege
	// Stateless reports whether the kind has no state to converge to: its
	// resources read absent and run on every wetrun (a pipeline), so the
	// re-read after a wetrun doesn't count them residual.
	Stateless() bool
}

// Planned is what the planner knows of a change beyond its resource.
type Planned struct {
	// Verdict and Drift are detection's for the resource.
	Verdict observation.Verdict
	Drift   []observation.Difference
	// Target is the declaration's target: its package and service managers.
	Target declaration.Target
	// Trigger is the trigger a service's change carries (the trigger model
	// in the planner sets it), or nil.
	Trigger *plan.Trigger
	// Pin is the blake3 pin detection compared a resource that fetches
	// against (observation.Resource.Pin); "" for any other resource.
	Pin string
	// ID is the resource's id (Def.Steps sets it): a kind whose defaults
	// name it (an apt_repo's paths) reads it here.
	ID string
}

// Line is one line of what a resource declares: "field: value".
type Line struct {
	Field, Value string
}

// Shell is a text of a resource that reaches a shell: a command's text, or
// (not InCommand) an environment variable's value. A kind whose fields do
// implements Shells, so the front end can refuse a reference's value that
// such a text can't carry before anything runs.
type Shell struct {
	Field     string
	Text      *declaration.Text
	InCommand bool
}

// Shells is implemented by the kinds with texts that reach a shell.
type Shells interface {
	Shells(r *declaration.Resource) []Shell
}

// Def is a kind made of its parts, each given the resource's body (B is its
// pointer type: *declaration.File, ...) and what else it may need of the
// resource: Read the whole of it (env.Resource: a pin is looked up by the
// resource), Plan and Show its id (at.ID, id: a default may name it).
type Def[B declaration.Body] struct {
	// Name is the kind's type.
	Name declaration.Kind
	// Read builds the detector (Kind.Detect), with env.Resource set.
	Read func(b B, env detect.Env) detect.Detector
	// Plan returns the steps (Kind.Steps), with at.ID set; an error names
	// the field, and Steps puts the resource's id in front.
	Plan func(b B, at Planned) ([]plan.Step, error)
	// Show lists what the body of the resource id declares
	// (Kind.Declared); nil for nothing.
	Show func(b B, id string) []Line
	// As is Kind.RunsAs.
	As plan.Privilege
	// Shell lists the texts that reach a shell (Shells); nil for none.
	Shell func(b B) []Shell
	// NoState is Kind.Stateless.
	NoState bool
	// Ops holds the scripts of the kind's own operations, when it keeps
	// them in its folder: scripts/*.sh and scripts/lib/*.sh, which
	// internal/kinds hands internal/ops (ops.Register). nil for none.
	Ops fs.FS
	// Word words those of its operations (in Ops) that have words of their
	// own, and says false for the others; internal/kinds hands it
	// internal/ops/opcmd for each (opcmd.Register). nil for none.
	Word func(op *plan.Op) (opcmd.Words, bool)
	// Text gives, by operation, the text one of its operations writes that
	// its = line doesn't show (Body), from the operation's arguments, and
	// false where there is none; internal/kinds hands the plan's view
	// each (kinds.BodyOf). nil for none.
	Text map[plan.OpName]func(args []string) (Body, bool)
	// Doc is the kind's own words for its reference page (zap doc KIND,
	// docs/kinds/<kind>.md): its doc.md, embedded by its doc.go. Its
	// first line is the one line zap doc lists it by, then what it is,
	// then ## Example (a whole config, in a ts block), ## Detection (what
	// a read looks at) and ## Apply (the steps, with their sudo).
	// internal/refdoc adds the fields, from the schema. "" for none yet.
	Doc string
}

// Documentation is d.Doc (Documented).
func (d Def[B]) Documentation() string { return d.Doc }

// Documented is implemented by a kind that carries its reference page's
// prose (kind.Def's Doc).
type Documented interface {
	Documentation() string
}

// Body is text one of a kind's operations writes that its = line doesn't
// show, printed under that line by the plan (render.Step) and nowhere
// else: display only, so plan_hash and a report's words don't change.
type Body struct {
	// Field is "text", a file's whole text Zap makes from the operation's
	// arguments (printed as a put's text: is, with its digest), or
	// "line", a line the config supplies (printed as it is).
	Field string
	// Text is the text or the line.
	Text string
	// Args is how many of the operation's last arguments Text stands for:
	// its = line leaves them out.
	Args int
}

// Texts is d.Text (Texted).
func (d Def[B]) Texts() map[plan.OpName]func(args []string) (Body, bool) { return d.Text }

// Texted is implemented by a kind whose operations write text their =
// lines don't show: Texts returns, by operation, how to get it (nil for
// none).
type Texted interface {
	Texts() map[plan.OpName]func(args []string) (Body, bool)
}

// OpWord is d.Word (Scripted).
func (d Def[B]) OpWord() func(op *plan.Op) (opcmd.Words, bool) { return d.Word }

// Scripts is d.Ops (Scripted).
func (d Def[B]) Scripts() fs.FS { return d.Ops }

// Scripted is implemented by a kind that keeps its operations in its own
// folder: Scripts returns their scripts (nil for none), OpWord their
// wording (nil for none).
type Scripted interface {
	Scripts() fs.FS
	OpWord() func(op *plan.Op) (opcmd.Words, bool)
}

// body is r's body as a B, and whether it is one.
func (d Def[B]) body(r *declaration.Resource) (B, bool) {
	b, ok := r.Body.(B)
	return b, ok
}

// Type is d.Name.
func (d Def[B]) Type() declaration.Kind { return d.Name }

// Detect is d.Read of r's body; a resource with no such body holds.
func (d Def[B]) Detect(r *declaration.Resource, env detect.Env) detect.Detector {
	b, ok := d.body(r)
	if !ok {
		return detect.Held(fmt.Sprintf("type: a %s resource with no %s fields", d.Name, d.Name))
	}
	env.Resource = r
	return d.Read(b, env)
}

// Steps is d.Plan of r's body, its error naming r.
func (d Def[B]) Steps(r *declaration.Resource, at Planned) ([]plan.Step, error) {
	b, ok := d.body(r)
	if !ok {
		return nil, fmt.Errorf("resource %q: type: a %s resource with no %s fields", r.ID, d.Name, d.Name)
	}
	at.ID = r.ID
	steps, err := d.Plan(b, at)
	if err != nil {
		return nil, fmt.Errorf("resource %q: %w", r.ID, err)
	}
	return steps, nil
}

// Declared is d.Show of r's body.
func (d Def[B]) Declared(r *declaration.Resource) []Line {
	if b, ok := d.body(r); ok && d.Show != nil {
		return d.Show(b, r.ID)
	}
	return nil
}

// RunsAs is d.As.
func (d Def[B]) RunsAs() plan.Privilege { return d.As }

// Stateless is d.NoState.
func (d Def[B]) Stateless() bool { return d.NoState }

// Shells is d.Shell of r's body.
func (d Def[B]) Shells(r *declaration.Resource) []Shell {
	if b, ok := d.body(r); ok && d.Shell != nil {
		return d.Shell(b)
	}
	return nil
}

// StepsOf is one step for each of xs, in order.
func StepsOf[T any](xs []T, step func(T) plan.Step) []plan.Step {
	steps := make([]plan.Step, 0, len(xs))
	for _, x := range xs {
		steps = append(steps, step(x))
	}
	return steps
}

// EnvLines lists a command's environment, by name, one line each:
// "env: NAME = value".
func EnvLines(m map[string]declaration.Text) []Line {
	out := make([]Line, 0, len(m))
	for _, n := range slices.Sorted(maps.Keys(m)) {
		out = append(out, Line{Field: "env", Value: escape.Line(n) + " = " + m[n].String()})
	}
	return out
}

// Perms lists a path's declared mode, owner and group, each when set: the
// preview lines a file and a directory share.
func Perms(mode, owner, group string) []Line {
	var out []Line
	for _, l := range []Line{{Field: "mode", Value: mode}, {Field: "owner", Value: owner}, {Field: "group", Value: group}} {
		if l.Value != "" {
			out = append(out, l)
		}
	}
	return out
}

// RootOps returns a maker of steps that run one of Zap's operations as
// root, with its arguments, under timeout seconds.
func RootOps(timeout int) func(name plan.OpName, args ...string) plan.Step {
	return func(name plan.OpName, args ...string) plan.Step {
		return plan.Step{Type: plan.StepOp, Op: &plan.Op{Name: name, Args: args, Privilege: plan.Root, Timeout: timeout}}
	}
}
