package planner

import (
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// verifySteps: one step per assertion, in order, each checked again at the
// verify's place in the run, as the login user, exactly as detection
// checked it: a path_exists is the verify-path operation (the script
// detection ran as its probe), a command is the operator's command detection
// ran (wrapped to look for its expected text, when it has one), under the
// check's limit. A failing assertion fails the step, so the change fails
// there and every later change is skipped.
func verifySteps(v *declaration.Verify) []plan.Step {
	steps := make([]plan.Step, 0, len(v.Assertions))
	for _, a := range v.Assertions {
		switch a.Type {
		case declaration.AssertPathExists:
			steps = append(steps, plan.Step{Type: plan.StepOp, Op: &plan.Op{
				Name:      vocab.OpVerifyPath,
				Args:      vocab.VerifyPathArgs(a),
				Privilege: plan.Login,
				Timeout:   vocab.ProbeTimeout,
			}})
		case declaration.AssertCommand:
			steps = append(steps, plan.Step{Type: plan.StepCommand, Command: &plan.Command{
				Run:       vocab.AssertionCommand(a),
				Privilege: plan.Login,
				Timeout:   vocab.CheckTimeout,
			}})
		}
	}
	return steps
}

// cloneVerify copies v deeply enough to share no slice or pointer with it.
func cloneVerify(v *declaration.Verify) *declaration.Verify {
	x := &declaration.Verify{Assertions: make([]declaration.Assertion, len(v.Assertions))}
	for i, a := range v.Assertions {
		if a.NotEmpty != nil {
			b := *a.NotEmpty
			a.NotEmpty = &b
		}
		a.Run = cloneText(a.Run)
		if a.Expect != nil {
			s := *a.Expect
			a.Expect = &s
		}
		x.Assertions[i] = a
	}
	return x
}
