package planner

import (
	"reflect"
	"testing"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

func installerRes(id, url, check, shell string, deps ...string) declaration.Resource {
	return declaration.Resource{
		Common:    declaration.Common{ID: id, Type: declaration.KindInstaller, DependsOn: deps},
		Installer: &declaration.Installer{URL: url, Check: declaration.Lit(check), Shell: shell},
	}
}

func verifyRes(id string, as []declaration.Assertion, deps ...string) declaration.Resource {
	return declaration.Resource{
		Common: declaration.Common{ID: id, Type: declaration.KindVerify, DependsOn: deps},
		Verify: &declaration.Verify{Assertions: as},
	}
}

func pipelineRes(id string, steps []declaration.Step, deps ...string) declaration.Resource {
	return declaration.Resource{
		Common:   declaration.Common{ID: id, Type: declaration.KindPipeline, DependsOn: deps},
		Pipeline: &declaration.Pipeline{Steps: steps},
	}
}

// TestInstallerSteps: one installer operation as the login user, the URL and
// the shell line as arguments (sh when none is declared); the operation has
// a script, so plan_hash covers it.
func TestInstallerSteps(t *testing.T) {
	p := mustPlan(t, observe(
		absent(installerRes("rust", "https://sh.rustup.rs", "~/.cargo/bin/rustc", "sh -s -- -y")),
		absent(installerRes("tool", "https://example.com/i.sh", "/usr/local/bin/tool", "")),
	))
	want := map[string][]string{"rust": {"https://sh.rustup.rs", "sh -s -- -y"}, "tool": {"https://example.com/i.sh", "sh"}}
	for _, c := range p.Changes {
		step := plan.Step{Type: plan.StepOp, Op: &plan.Op{Name: "installer", Args: want[c.ID], Privilege: plan.Login}}
		if c.Action != plan.Create || len(c.Steps) != 1 || !reflect.DeepEqual(c.Steps[0], step) {
			t.Errorf("%s: %s %+v, want create %+v", c.ID, c.Action, c.Steps, step.Op)
		}
	}
	if _, ok := ops.Script(OpInstaller); !ok {
		t.Error("no script for the installer operation")
	}
	if _, err := plan.Hash(p, ops.Script); err != nil {
		t.Errorf("plan_hash: %v", err)
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
		{Type: plan.StepOp, Op: &plan.Op{Name: detect.OpVerifyPath, Args: []string{"/srv/token", "file", "600", "", "not_empty"}, Privilege: plan.Login, Timeout: detect.ProbeTimeout}},
		{Type: plan.StepCommand, Command: &plan.Command{Run: run, Privilege: plan.Login, Timeout: detect.CheckTimeout}},
		{Type: plan.StepCommand, Command: &plan.Command{Run: detect.AssertionCommand(as[2]), Privilege: plan.Login, Timeout: detect.CheckTimeout}},
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
	*c.Resource.Verify.Assertions[0].NotEmpty = false
	if !yes {
		t.Error("the plan's verify shares not_empty with the declaration")
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
	c.Resource.Pipeline.Steps[0].ID = "changed"
	if steps[0].ID != "b" {
		t.Error("the plan's pipeline shares its steps with the declaration")
	}
}
