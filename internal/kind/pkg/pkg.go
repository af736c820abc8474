// Package pkg is the package kind: a system package, named per package
// manager. Its wire form is pkg/declaration/kind_package.go; its reads are
// detect.Package. Its steps are the planner's install batches
// (internal/planner/packages.go), which see every package of the plan at
// once: one index refresh and one install per batch, not one per package.
package pkg

import (
	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// Kind is the package kind.
type Kind struct{}

// Type is "package".
func (Kind) Type() declaration.Kind { return declaration.KindPackage }

// Detect asks the target's package manager.
func (Kind) Detect(r *declaration.Resource, env detect.Env) detect.Detector {
	return detect.NewPackage(r.Package, env)
}

// Steps: none of its own; the install batches fill them in.
func (Kind) Steps(*declaration.Resource, kind.Planned) ([]plan.Step, error) {
	return []plan.Step{}, nil
}

// Declared: each manager's name, in the managers' order (the target's
// package_manager picks one), and the check.
func (Kind) Declared(r *declaration.Resource) []kind.Line {
	var out []kind.Line
	for _, m := range declaration.PackageManagers {
		if name, ok := r.Package.From[m]; ok {
			out = append(out, kind.Line{Field: "from", Value: m + " " + name})
		}
	}
	if r.Package.Check != nil {
		out = append(out, kind.Line{Field: "check", Value: r.Package.Check.String()})
	}
	return out
}

// RunsAs: root.
func (Kind) RunsAs() plan.Privilege { return plan.Root }
