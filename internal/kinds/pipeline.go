package kinds

// A pipeline is steps run in order on every wetrun, with no state to
// converge to: its detector (detect.Pipeline) reads nothing and is always
// absent. Its wire form is pkg/declaration/kind_pipeline.go.

import (
	"fmt"

	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// pipelineSteps: each step's run as a command of its own, in declared
// order, as the login user with no limit, like a script's run. The
// structural gate has refused what the executor doesn't run (an env, a
// max_concurrency above 1, a step's cwd, env or depends_on), so a step is
// its run alone; its id and name are shown from the resource.
func pipelineSteps(p *declaration.Pipeline, _ kind.Planned) ([]plan.Step, error) {
	return stepsOf(p.Steps, func(s declaration.Step) plan.Step {
		return plan.Step{Type: plan.StepCommand, Command: &plan.Command{Run: s.Run, Privilege: plan.Login}}
	}), nil
}

// showPipeline: max_concurrency, and each step's id and name.
func showPipeline(p *declaration.Pipeline, _ string) []kind.Line {
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
