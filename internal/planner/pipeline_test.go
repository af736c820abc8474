package planner

import (
	"reflect"
	"testing"

	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

func pipelineRes(id string, steps []declaration.Step, deps ...string) declaration.Resource {
	return declaration.Resource{
		Common: declaration.Common{ID: id, Type: declaration.KindPipeline, DependsOn: deps},
		Body:   &declaration.Pipeline{Steps: steps},
	}
}

// TestPipelineSteps: a pipeline is always a create, its steps' runs as
// commands in declared order, as the login user with no limit, ordered
// among the resources by its depends_on like any other.
func TestPipelineSteps(t *testing.T) {
	steps := []declaration.Step{
		{ID: "b", Name: "Build", Run: declaration.Lit("make")},
		{ID: "a", Run: declaration.Concat(declaration.Part{Lit: "deploy "}, declaration.Part{Env: "ENV"})},
	}
	p := mustPlan(t, observe(
		absent(pipelineRes("ci", steps, "z-dir")),
		absent(dirRes("z-dir", "/srv/ci")),
	))
	if got := changeIDs(p); !reflect.DeepEqual(got, []string{"z-dir", "ci"}) {
		t.Fatalf("changes %v, want [z-dir ci]", got)
	}
	c := p.Changes[1]
	want := []plan.Step{
		{Type: plan.StepCommand, Command: &plan.Command{Run: steps[0].Run, Privilege: plan.Login}},
		{Type: plan.StepCommand, Command: &plan.Command{Run: steps[1].Run, Privilege: plan.Login}},
	}
	if c.Action != plan.Create || !reflect.DeepEqual(c.Steps, want) {
		t.Errorf("ci: %s %+v", c.Action, c.Steps)
	}
	if !reflect.DeepEqual(p.References, []observation.Reference(nil)) && len(p.References) != 0 {
		t.Errorf("references %+v: no value was observed", p.References)
	}
	declaration.BodyOf[*declaration.Pipeline](&c.Resource).Steps[0].ID = "changed"
	if steps[0].ID != "b" {
		t.Error("the plan's pipeline shares its steps with the declaration")
	}
}
