// Package directory is the directory kind: a path, mode, owner and group.
// Its wire form is pkg/declaration/kind_directory.go; its reads are
// detect.Directory.
package directory

import (
	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// Kind is the directory kind.
type Kind struct{}

// Type is "directory".
func (Kind) Type() declaration.Kind { return declaration.KindDirectory }

// Detect reads the directory at its path.
func (Kind) Detect(r *declaration.Resource, env detect.Env) detect.Detector {
	return detect.NewDirectory(r.Directory, env)
}

// Steps: one dir operation, elevated: path, mode, owner, group.
func (Kind) Steps(r *declaration.Resource, _ kind.Planned) ([]plan.Step, error) {
	x := r.Directory
	return []plan.Step{{Type: plan.StepOp, Op: &plan.Op{
		Name:      plan.OpDir,
		Path:      x.Path,
		Mode:      x.Mode,
		Owner:     x.Owner,
		Group:     x.Group,
		Privilege: plan.Elevated,
	}}}, nil
}

// Declared: the path, then its mode, owner and group.
func (Kind) Declared(r *declaration.Resource) []kind.Line {
	d := r.Directory
	return append([]kind.Line{{Field: "path", Value: d.Path.String()}}, kind.Perms(d.Mode, d.Owner, d.Group)...)
}

// RunsAs: elevated, root only where the operator can't write the path.
func (Kind) RunsAs() plan.Privilege { return plan.Elevated }
