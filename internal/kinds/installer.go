package kinds

// An installer is a script fetched whole from a URL and piped to a shell,
// as the login user, unless its check path is there. Its wire form is
// pkg/declaration/kind_installer.go; its reads are detect.Installer.

import (
	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// installerSteps: one operation carrying the URL and the shell line (sh
// when none is declared) as arguments: both are literal (they take no
// reference).
func installerSteps(i *declaration.Installer, _ kind.Planned) ([]plan.Step, error) {
	shell := i.Shell
	if shell == "" {
		shell = "sh"
	}
	return []plan.Step{{Type: plan.StepOp, Op: &plan.Op{Name: vocab.OpInstaller, Args: []string{i.URL, shell}, Privilege: plan.Login}}}, nil
}
