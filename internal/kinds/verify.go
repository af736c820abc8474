package kinds

// A verify is assertions checked at their place in the run. Its wire form
// is pkg/declaration/kind_verify.go; its reads are detect.Verify. The
// preview shows each step as the assertion it checks.

import (
	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// verifySteps: one per assertion, in order, each checked again as the login
// user exactly as detection checked it: a path_exists is the verify-path
// operation (the script detection ran as its probe), a command is the
// operator's command detection ran (wrapped to look for its expected text,
// when it has one), under the check's limit. A failing assertion fails the
// step, so the change fails there and every later change is skipped.
func verifySteps(v *declaration.Verify, _ kind.Planned) ([]plan.Step, error) {
	return kind.StepsOf(v.Assertions, assertionStep), nil
}

// assertionStep is the step that checks a.
func assertionStep(a declaration.Assertion) plan.Step {
	if a.Type == declaration.AssertPathExists {
		return plan.Step{Type: plan.StepOp, Op: &plan.Op{Name: vocab.OpVerifyPath, Args: vocab.VerifyPathArgs(a), Privilege: plan.Login, Timeout: vocab.ProbeTimeout}}
	}
	return plan.Step{Type: plan.StepCommand, Command: &plan.Command{Run: vocab.AssertionCommand(a), Privilege: plan.Login, Timeout: vocab.CheckTimeout}}
}
