// Package directory is the directory kind: a path, with the mode, owner
// and group declared. Its wire form is pkg/declaration/kind_directory.go;
// everything else of it is here: its reads (Directory, the detector), its
// step, its preview lines, its operation's script (scripts/dir.sh, which
// Kind hands internal/ops) and their tests. The operation's name
// (plan.OpDir) is the plan's, which the executor shares: internal/localops
// makes the directory natively, and internal/ops/asroot and
// internal/sshhost run the script with its arguments; opcmd.FileWho words
// it with the other file operations. The attributes its reads compare
// (detect.Attrs, detect.Restat) and its preview lines (kind.Perms) are
// shared with the file kind. internal/kinds lists Kind.
package directory

import (
	"embed"

	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// steps: the dir operation, with the path, mode, owner and group.
func steps(d *declaration.Directory, _ kind.Planned) ([]plan.Step, error) {
	op := &plan.Op{Name: plan.OpDir, Path: d.Path, Mode: d.Mode, Owner: d.Owner, Group: d.Group, Privilege: plan.Elevated}
	return []plan.Step{{Type: plan.StepOp, Op: op}}, nil
}

// show: the path, then its mode, owner and group.
func show(d *declaration.Directory, _ string) []kind.Line {
	return append([]kind.Line{{Field: "path", Value: d.Path.String()}}, kind.Perms(d.Mode, d.Owner, d.Group)...)
}

//go:embed scripts/*.sh
var scripts embed.FS

// Kind is the directory kind: its reads, its step and its script,
// elevated.
var Kind = kind.Def[*declaration.Directory]{Name: declaration.KindDirectory, Read: NewDirectory, Plan: steps, Show: show, As: plan.Elevated, Ops: scripts, Doc: doc}
