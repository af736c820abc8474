// Package pkg is the package kind: a system package, named per package
// manager. Its wire form is pkg/declaration/kind_package.go; here are its
// reads (Package: the manager's query or the declared check), its preview
// lines and their tests. It has no steps of its own: the planner's install
// batches (internal/planner/packages.go) see every package of the plan at
// once and give each batch one index refresh and one install, so the
// batches' operations (vocab.OpPkgUpdate, vocab.OpPkgInstall), their
// scripts (internal/ops/scripts/pkg-*.sh) and their wording
// (internal/ops/opcmd's Forms) stay with the planner and the executor that
// share them. internal/kinds lists Kind.
package pkg

import (
	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// Kind is the package kind, as root.
var Kind = kind.Def[*declaration.Package]{Name: declaration.KindPackage, Read: NewPackage, Plan: steps, Show: preview, As: plan.Root, Doc: doc}

// steps: none; the install batches fill them in.
func steps(*declaration.Package, kind.Planned) ([]plan.Step, error) {
	return []plan.Step{}, nil
}

// preview: each manager's name, in the managers' order (the target's
// package_manager picks one), and the check.
func preview(p *declaration.Package, _ string) []kind.Line {
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
