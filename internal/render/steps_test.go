package render

import (
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/kinds/verify"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// TestPipelineVerifyInstallerChange: a pipeline lists its max_concurrency
// and each step's id then name above the steps' commands; a verify's steps
// are # lines saying what each assertion asks (a command whole, its expected
// text under it, control characters escaped), never the wrapper that checks
// it; an installer's step names its URL and shell, in the plan and in a
// failure report alike.
func TestPipelineVerifyInstallerChange(t *testing.T) {
	ctx := observation.Context{Target: "local", User: "alice"}
	one := 1
	pipe := declaration.Resource{Common: declaration.Common{ID: "ci", Type: declaration.KindPipeline},
		Body: &declaration.Pipeline{MaxConcurrency: &one, Steps: []declaration.Step{
			{ID: "build", Name: "Build it", Run: declaration.Lit("make")},
			{ID: "test", Run: declaration.Lit("make test")},
		}}}
	yes := true
	run := declaration.Lit("curl -fs https://localhost/\necho done")
	expect := "ok\x1b"
	ver := declaration.Resource{Common: declaration.Common{ID: "gate", Type: declaration.KindVerify},
		Body: &declaration.Verify{Assertions: []declaration.Assertion{
			{Type: declaration.AssertPathExists, Path: "/srv/token", FileType: "file", Mode: "600", NotEmpty: &yes},
			{Type: declaration.AssertCommand, Run: &run, Expect: &expect},
		}}}
	inst := plan.Op{Name: "installer", Args: []string{"https://sh.rustup.rs", "sh -s -- -y"}, Privilege: plan.Login}
	p := &plan.Plan{Context: ctx, Changes: []plan.Change{
		{ID: "ci", Type: declaration.KindPipeline, Action: plan.Create, Resource: pipe, Steps: []plan.Step{
			{Type: plan.StepCommand, Command: &plan.Command{Run: declaration.Lit("make"), Privilege: plan.Login}},
			{Type: plan.StepCommand, Command: &plan.Command{Run: declaration.Lit("make test"), Privilege: plan.Login}},
		}},
		{ID: "gate", Type: declaration.KindVerify, Action: plan.Update, Resource: ver, Steps: []plan.Step{
			{Type: plan.StepOp, Op: &plan.Op{Name: verify.OpPath, Args: verify.PathArgs(declaration.BodyOf[*declaration.Verify](&ver).Assertions[0]), Privilege: plan.Login}},
			{Type: plan.StepCommand, Command: &plan.Command{Run: verify.AssertionCommand(declaration.BodyOf[*declaration.Verify](&ver).Assertions[1]), Privilege: plan.Login}},
		}},
		{ID: "rust", Type: declaration.KindInstaller, Action: plan.Create, Steps: []plan.Step{{Type: plan.StepOp, Op: &inst}},
			Resource: declaration.Resource{Common: declaration.Common{ID: "rust", Type: declaration.KindInstaller},
				Body: &declaration.Installer{URL: "https://sh.rustup.rs", Check: declaration.Lit("~/.cargo/bin/rustc"), Shell: "sh -s -- -y"}}},
	}}
	var b strings.Builder
	for i := range p.Changes {
		Change(&b, p, &p.Changes[i], false, "")
	}
	want := `[+] ci  pipeline
    max_concurrency: 1
    step: build
    step name: Build it
    step: test
    > make
    > make test
[~] gate  verify
    # path_exists /srv/token (file, mode 600, not empty)
    # command curl -fs https://localhost/
      echo done
      stdout contains: ok<U+001B>
[+] rust  installer
    = run the script fetched from https://sh.rustup.rs (piped to sh -s -- -y)
`
	if got := b.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	for _, c := range []struct {
		step plan.Step
		want string
	}{
		{plan.Step{Type: plan.StepOp, Op: &inst}, "run the script fetched from https://sh.rustup.rs (piped to sh -s -- -y)"},
		{p.Changes[1].Steps[0], "path_exists /srv/token (file, mode 600, not empty)"},
	} {
		if got := execute.Summary(c.step, "alice", false); got != c.want {
			t.Errorf("execute.Summary: %q, want %q", got, c.want)
		}
	}
}
