package planner

import (
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// installerSteps: one operation, as the login user, with the URL and the
// shell line as written (sh when none is declared). The URL is literal (it
// takes no reference) and so is the shell, so both travel as arguments.
func installerSteps(i *declaration.Installer) []plan.Step {
	shell := i.Shell
	if shell == "" {
		shell = "sh"
	}
	return []plan.Step{{Type: plan.StepOp, Op: &plan.Op{
		Name:      vocab.OpInstaller,
		Args:      []string{i.URL, shell},
		Privilege: plan.Login,
	}}}
}
