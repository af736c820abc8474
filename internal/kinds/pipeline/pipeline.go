// Package pipeline is the pipeline kind: steps run in order on every
// wetrun, with no state to converge to. Its wire form is
// pkg/declaration/kind_pipeline.go; all else of it is here: its reads
// (none: it is always absent), its steps and its preview lines.
// internal/kinds lists Kind.
package pipeline

import (
	"fmt"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// Kind is the pipeline kind: its steps run as the login user, and it has
// no state (kind.Kind.Stateless), so a wetrun's re-read doesn't count it
// residual.
var Kind = kind.Def[*declaration.Pipeline]{Name: declaration.KindPipeline, Read: newDetector, Plan: steps, Show: show, As: plan.Login, NoState: true, Doc: doc}

// detector is a pipeline's: it reads nothing and is always absent, so
// every wetrun runs its steps.
type detector struct{}

func newDetector(*declaration.Pipeline, detect.Env) detect.Detector { return detector{} }

// Queries: none.
func (detector) Queries() []detect.Query { return nil }

// Verdict: absent, by construction.
func (detector) Verdict([]detect.Answer) detect.Result { return detect.Absent() }

// steps: each step's run as a command of its own, in declared order, as
// the login user with no limit, like a script's run. The structural gate
// has refused what the executor doesn't run (an env, a max_concurrency
// above 1, a step's cwd, env or depends_on), so a step is its run alone;
// its id and name are shown from the resource.
func steps(p *declaration.Pipeline, _ kind.Planned) ([]plan.Step, error) {
	return kind.StepsOf(p.Steps, func(s declaration.Step) plan.Step {
		return plan.Step{Type: plan.StepCommand, Command: &plan.Command{Run: s.Run, Privilege: plan.Login}}
	}), nil
}

// show: max_concurrency, and each step's id and name.
func show(p *declaration.Pipeline, _ string) []kind.Line {
	var out []kind.Line
	if p.MaxConcurrency != nil {
		out = append(out, kind.Line{Field: "max_concurrency", Value: fmt.Sprint(*p.MaxConcurrency)})
	}
	for _, s := range p.Steps {
		out = append(out, kind.Line{Field: "step", Value: s.ID})
		if s.Name != "" {
			out = append(out, kind.Line{Field: "step name", Value: s.Name})
		}
	}
	return out
}
