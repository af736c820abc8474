package planner

import (
	"maps"

	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// pipelineSteps: each step's run as a command of its own, in declared
// order, as the login user with no limit, like a script's run. The
// structural gate has refused what the executor doesn't run (an env, a
// max_concurrency above 1, a step's cwd, env or depends_on), so a step is
// its run alone; its id and name are shown from the resource.
func pipelineSteps(p *declaration.Pipeline) []plan.Step {
	steps := make([]plan.Step, 0, len(p.Steps))
	for _, s := range p.Steps {
		steps = append(steps, plan.Step{Type: plan.StepCommand, Command: &plan.Command{
			Run:       s.Run,
			Privilege: plan.Login,
		}})
	}
	return steps
}

// clonePipeline copies p deeply enough to share no slice, map or pointer
// with it.
func clonePipeline(p *declaration.Pipeline) *declaration.Pipeline {
	x := &declaration.Pipeline{Steps: make([]declaration.Step, len(p.Steps)), Env: maps.Clone(p.Env)}
	if p.MaxConcurrency != nil {
		n := *p.MaxConcurrency
		x.MaxConcurrency = &n
	}
	for i, s := range p.Steps {
		s.Env = maps.Clone(s.Env)
		if s.DependsOn != nil {
			s.DependsOn = append([]string(nil), s.DependsOn...)
		}
		x.Steps[i] = s
	}
	return x
}
