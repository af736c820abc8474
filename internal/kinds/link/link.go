// Package link is the link kind: a symbolic link at a path to a target.
// Its wire form is pkg/declaration/kind_link.go; everything else of it is
// here: its reads (Link, the detector), its step, its preview lines, its
// operation's script (scripts/link.sh, which Kind hands internal/ops) and
// their tests. The operation's name (plan.OpLink) is the plan's, which
// the executor shares: internal/localops makes the link natively, and
// internal/ops/asroot and internal/sshhost run the script with its
// arguments; opcmd.FileWho words it with the other file operations.
// internal/kinds lists Kind.
package link

import (
	"embed"

	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// steps: the link operation, with the path and its target.
func steps(l *declaration.Link, _ kind.Planned) ([]plan.Step, error) {
	return []plan.Step{{Type: plan.StepOp, Op: &plan.Op{Name: plan.OpLink, Path: l.Path, Target: &l.Target, Privilege: plan.Elevated}}}, nil
}

// show: the path and what it points to.
func show(l *declaration.Link, _ string) []kind.Line {
	return []kind.Line{{Field: "path", Value: l.Path.String()}, {Field: "to", Value: l.Target.String()}}
}

//go:embed scripts/*.sh
var scripts embed.FS

// Kind is the link kind: its reads, its step and its script, elevated.
var Kind = kind.Def[*declaration.Link]{Name: declaration.KindLink, Read: NewLink, Plan: steps, Show: show, As: plan.Elevated, Ops: scripts, Doc: doc}
