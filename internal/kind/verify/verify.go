// Package verify is the verify kind: assertions checked at their place in
// the run. Its wire form is pkg/declaration/kind_verify.go; its reads are
// detect.Verify.
package verify

import (
	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// Kind is the verify kind.
type Kind struct{}

// Type is "verify".
func (Kind) Type() declaration.Kind { return declaration.KindVerify }

// Detect checks each assertion.
func (Kind) Detect(r *declaration.Resource, env detect.Env) detect.Detector {
	return detect.NewVerify(r.Verify, env)
}

// Steps: one step per assertion, in order, each checked again at the
// verify's place in the run, as the login user, exactly as detection
// checked it: a path_exists is the verify-path operation (the script
// detection ran as its probe), a command is the operator's command detection
// ran (wrapped to look for its expected text, when it has one), under the
// check's limit. A failing assertion fails the step, so the change fails
// there and every later change is skipped.
func (Kind) Steps(r *declaration.Resource, _ kind.Planned) ([]plan.Step, error) {
	v := r.Verify
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
	return steps, nil
}

// Declared: nothing; each step is shown as the assertion it checks.
func (Kind) Declared(*declaration.Resource) []kind.Line { return nil }

// RunsAs: the login user.
func (Kind) RunsAs() plan.Privilege { return plan.Login }
