package kinds

// A package is a system package, named per package manager. Its wire form
// is pkg/declaration/kind_package.go; its reads are detect.Package. It has
// no steps of its own: the planner's install batches
// (internal/planner/packages.go) see every package of the plan at once and
// give each batch one index refresh and one install.

import (
	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// packageSteps: none; the install batches fill them in.
func packageSteps(*declaration.Package, kind.Planned) ([]plan.Step, error) {
	return []plan.Step{}, nil
}

// showPackage: each manager's name, in the managers' order (the target's
// package_manager picks one), and the check.
func showPackage(p *declaration.Package, _ string) []kind.Line {
	var out []kind.Line
	for _, m := range declaration.PackageManagers {
		if name, ok := p.From[m]; ok {
			out = append(out, kind.Line{Field: "from", Value: m + " " + name})
		}
	}
	if p.Check != nil {
		out = append(out, kind.Line{Field: "check", Value: p.Check.String()})
	}
	return out
}
