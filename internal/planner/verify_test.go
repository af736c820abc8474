package planner

import (
	"reflect"
	"testing"

	"github.com/zap-go/zap/internal/kinds/verify"
	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

func verifyRes(id string, as []declaration.Assertion, deps ...string) declaration.Resource {
	return declaration.Resource{
		Common: declaration.Common{ID: id, Type: declaration.KindVerify, DependsOn: deps},
		Body:   &declaration.Verify{Assertions: as},
	}
}

// TestVerifySteps: a drifted verify plans every assertion again, in order,
// as the login user: path_exists as the verify-path operation with its
// arguments, a command as the command detection ran (wrapped when it has an
// expect), each under its check's limit; a converged verify plans nothing.
func TestVerifySteps(t *testing.T) {
	yes := true
	ok := "ok"
	run := declaration.Concat(declaration.Part{Lit: "curl -fs "}, declaration.Part{Env: "URL"})
	as := []declaration.Assertion{
		{Type: declaration.AssertPathExists, Path: "/srv/token", FileType: "file", Mode: "600", NotEmpty: &yes},
		{Type: declaration.AssertCommand, Run: &run},
		{Type: declaration.AssertCommand, Run: &run, Expect: &ok},
	}
	drift := observation.Difference{Field: "assertions[0]", Observed: "nothing there", Desired: "path_exists /srv/token (file, mode 600, not empty)"}
	p := mustPlan(t, observe(drifted(verifyRes("guard", as), drift), converged(verifyRes("fine", as[:1]))))
	if got := changeIDs(p); !reflect.DeepEqual(got, []string{"guard"}) {
		t.Fatalf("changes %v, want [guard]", got)
	}
	c := p.Changes[0]
	want := []plan.Step{
		{Type: plan.StepOp, Op: &plan.Op{Name: verify.OpPath, Args: []string{"/srv/token", "file", "600", "", "not_empty"}, Privilege: plan.Login, Timeout: vocab.ProbeTimeout}},
		{Type: plan.StepCommand, Command: &plan.Command{Run: run, Privilege: plan.Login, Timeout: vocab.CheckTimeout}},
		{Type: plan.StepCommand, Command: &plan.Command{Run: verify.AssertionCommand(as[2]), Privilege: plan.Login, Timeout: vocab.CheckTimeout}},
	}
	if c.Action != plan.Update || !reflect.DeepEqual(c.Steps, want) || !reflect.DeepEqual(c.Drift, []observation.Difference{drift}) {
		t.Errorf("guard: %s %+v %+v", c.Action, c.Steps, c.Drift)
	}
	// The wrapped command keeps the run's reference, so the plan's
	// references block names it and a wetrun resolves it.
	if refs := c.Steps[2].Command.Run.Refs(); !reflect.DeepEqual(refs, []string{"URL"}) {
		t.Errorf("the wrapped command's references: %v", refs)
	}
	if _, err := plan.Hash(p, ops.Script); err != nil {
		t.Errorf("plan_hash: %v", err)
	}
	// The plan shares no pointer with the observations.
	*declaration.BodyOf[*declaration.Verify](&c.Resource).Assertions[0].NotEmpty = false
	if !yes {
		t.Error("the plan's verify shares not_empty with the declaration")
	}
}
