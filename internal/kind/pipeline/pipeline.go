// Package pipeline is the pipeline kind: steps run in order on every
// wetrun, with no state to converge to. Its wire form is
// pkg/declaration/kind_pipeline.go; its detector is detect.Pipeline.
package pipeline

import (
	"fmt"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// Kind is the pipeline kind.
type Kind struct{}

// Type is "pipeline".
func (Kind) Type() declaration.Kind { return declaration.KindPipeline }

// Detect reads nothing: a pipeline is always absent.
func (Kind) Detect(*declaration.Resource, detect.Env) detect.Detector { return detect.Pipeline{} }

// Steps: each step's run as a command of its own, in declared order, as the
// login user with no limit, like a script's run. The structural gate has
// refused what the executor doesn't run (an env, a max_concurrency above 1,
// a step's cwd, env or depends_on), so a step is its run alone; its id and
// name are shown from the resource.
func (Kind) Steps(r *declaration.Resource, _ kind.Planned) ([]plan.Step, error) {
	p := r.Pipeline
	steps := make([]plan.Step, 0, len(p.Steps))
	for _, s := range p.Steps {
		steps = append(steps, plan.Step{Type: plan.StepCommand, Command: &plan.Command{
			Run:       s.Run,
			Privilege: plan.Login,
		}})
	}
	return steps, nil
}

// Declared: max_concurrency, and each step's id and name.
func (Kind) Declared(r *declaration.Resource) []kind.Line {
	p := r.Pipeline
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

// RunsAs: the login user.
func (Kind) RunsAs() plan.Privilege { return plan.Login }
