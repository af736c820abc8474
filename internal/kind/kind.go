// Package kind is the contract one resource kind fulfils for the stages: how
// it is read (detection), what its change does (planning), and how the
// preview shows what it declares. A kind's wire form (its fields, decoding,
// form checks and canonical encoding) is pkg/declaration/kind_<name>.go; the
// rest is one package per kind under internal/kind/<name>, holding a value
// of type Kind, and listed once in internal/kinds.
//
// A kind's package may import the shared vocabulary (internal/vocab), the
// document packages (pkg/...), detect's queries and detectors, and pure
// helpers; nothing that does I/O, since the planner reaches every kind
// through internal/kinds and must stay a function of its input.
package kind

import (
	"sort"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/escape"
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

// Perms lists a path's declared mode, owner and group, each when set.
func Perms(mode, owner, group string) []Line {
	var out []Line
	for _, l := range []Line{{"mode", mode}, {"owner", owner}, {"group", group}} {
		if l.Value != "" {
			out = append(out, l)
		}
	}
	return out
}

// Env lists a command's environment, by name, one "env: NAME = value" line
// each.
func Env(m map[string]declaration.Text) []Line {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]Line, 0, len(names))
	for _, n := range names {
		out = append(out, Line{"env", escape.Line(n) + " = " + m[n].String()})
	}
	return out
}
