// Package installer is the installer kind: a script fetched whole from a
// URL and piped to a shell, as the login user, unless its check passes.
// Its wire form is pkg/declaration/kind_installer.go; its reads are
// detect.Installer.
package installer

import (
	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// Kind is the installer kind.
type Kind struct{}

// Type is "installer".
func (Kind) Type() declaration.Kind { return declaration.KindInstaller }

// Detect runs the check.
func (Kind) Detect(r *declaration.Resource, env detect.Env) detect.Detector {
	return detect.NewInstaller(r.Installer, env)
}

// Steps: one operation, as the login user, with the URL and the shell line
// as written (sh when none is declared). The URL is literal (it takes no
// reference) and so is the shell, so both travel as arguments.
func (Kind) Steps(r *declaration.Resource, _ kind.Planned) ([]plan.Step, error) {
	i := r.Installer
	shell := i.Shell
	if shell == "" {
		shell = "sh"
	}
	return []plan.Step{{Type: plan.StepOp, Op: &plan.Op{
		Name:      vocab.OpInstaller,
		Args:      []string{i.URL, shell},
		Privilege: plan.Login,
	}}}, nil
}

// Declared: nothing beyond its steps.
func (Kind) Declared(*declaration.Resource) []kind.Line { return nil }

// RunsAs: the login user.
func (Kind) RunsAs() plan.Privilege { return plan.Login }
