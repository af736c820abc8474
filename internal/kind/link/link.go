// Package link is the link kind: a symbolic link at a path to a target.
// Its wire form is pkg/declaration/kind_link.go; its reads are detect.Link.
package link

import (
	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// Kind is the link kind.
type Kind struct{}

// Type is "link".
func (Kind) Type() declaration.Kind { return declaration.KindLink }

// Detect reads the link at its path.
func (Kind) Detect(r *declaration.Resource, env detect.Env) detect.Detector {
	return detect.NewLink(r.Link, env)
}

// Steps: one link operation, elevated: the path and its target.
func (Kind) Steps(r *declaration.Resource, _ kind.Planned) ([]plan.Step, error) {
	target := r.Link.Target
	return []plan.Step{{Type: plan.StepOp, Op: &plan.Op{
		Name:      plan.OpLink,
		Path:      r.Link.Path,
		Target:    &target,
		Privilege: plan.Elevated,
	}}}, nil
}

// Declared: the path and what it points to.
func (Kind) Declared(r *declaration.Resource) []kind.Line {
	return []kind.Line{{Field: "path", Value: r.Link.Path.String()}, {Field: "to", Value: r.Link.Target.String()}}
}

// RunsAs: elevated, root only where the operator can't write the path.
func (Kind) RunsAs() plan.Privilege { return plan.Elevated }
