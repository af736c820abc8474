package kinds

// A directory is a path, mode, owner and group; a link is a symbolic link
// at a path to a target. Their wire forms are pkg/declaration's
// kind_directory.go and kind_link.go; their reads are detect.Directory and
// detect.Link. Each has one operation, elevated.

import (
	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// directorySteps: the dir operation, with the path, mode, owner and group.
func directorySteps(d *declaration.Directory, _ kind.Planned) ([]plan.Step, error) {
	op := &plan.Op{Name: plan.OpDir, Path: d.Path, Mode: d.Mode, Owner: d.Owner, Group: d.Group, Privilege: plan.Elevated}
	return []plan.Step{{Type: plan.StepOp, Op: op}}, nil
}

// showDirectory: the path, then its mode, owner and group.
func showDirectory(d *declaration.Directory, _ string) []kind.Line {
	return append([]kind.Line{{Field: "path", Value: d.Path.String()}}, perms(d.Mode, d.Owner, d.Group)...)
}

// linkSteps: the link operation, with the path and its target.
func linkSteps(l *declaration.Link, _ kind.Planned) ([]plan.Step, error) {
	return []plan.Step{{Type: plan.StepOp, Op: &plan.Op{Name: plan.OpLink, Path: l.Path, Target: &l.Target, Privilege: plan.Elevated}}}, nil
}

// showLink: the path and what it points to.
func showLink(l *declaration.Link, _ string) []kind.Line {
	return []kind.Line{{Field: "path", Value: l.Path.String()}, {Field: "to", Value: l.Target.String()}}
}
