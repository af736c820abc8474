// Package installer is the installer kind: a script fetched whole from a
// URL and piped to a shell, as the login user, unless its check path is
// there. Its wire form is pkg/declaration/kind_installer.go; all else of
// it is here: its reads (the check path), its step, its operation's script
// (scripts/installer.sh) and wording, and their tests. internal/kinds
// lists Kind.
package installer

import (
	"embed"

	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/internal/ops/opcmd"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// Kind is the installer kind, as the login user.
var Kind = kind.Def[*declaration.Installer]{
	Name: declaration.KindInstaller, Read: NewInstaller, Plan: steps, As: plan.Login,
	Ops: scripts, Word: words,
	Doc: doc,
}

// OpRun fetches an install script whole and pipes it into a shell
// (scripts/installer.sh): URL SHELL, as the login user.
const OpRun plan.OpName = "installer"

// scripts holds the installer operation's script.
//
//go:embed scripts/*.sh
var scripts embed.FS

// steps: one operation carrying the URL and the shell line (sh when none
// is declared) as arguments: both are literal (they take no reference).
func steps(i *declaration.Installer, _ kind.Planned) ([]plan.Step, error) {
	shell := i.Shell
	if shell == "" {
		shell = "sh"
	}
	return []plan.Step{{Type: plan.StepOp, Op: &plan.Op{Name: OpRun, Args: []string{i.URL, shell}, Privilege: plan.Login}}}, nil
}

// words: the URL the script is fetched from and the shell it is piped to.
func words(op *plan.Op) (opcmd.Words, bool) {
	if op.Name != OpRun || len(op.Args) != 2 {
		return opcmd.Words{}, false
	}
	return opcmd.Words{Text: "run the script fetched from " + op.Args[0] + " (piped to " + op.Args[1] + ")"}, true
}
