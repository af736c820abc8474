package planner

import (
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"maps"

	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// stepsFor returns the steps of r's change. Create and update share them:
// each kind's operation makes the declared state whatever is there. The
// executor runs exactly these, so the two must agree on them:
//
//	file      = put  path, content and its SHA-512, mode, owner, group, validate (elevated)
//	directory = dir  path, mode, owner, group (elevated)
//	link      = link path, target (elevated)
//	script    > run, in cwd with env (login)
//
// Every Text is kept as written: references resolve when the step runs.
func stepsFor(r *declaration.Resource) ([]plan.Step, error) {
	switch {
	case r.File != nil:
		f := r.File
		if f.Content.Type != declaration.ContentInline || f.Content.Inline == nil {
			return nil, fmt.Errorf("resource %q: content: want an inline content source", r.ID)
		}
		content := *f.Content.Inline
		sum := sha512.Sum512([]byte(content))
		return []plan.Step{{Type: plan.StepOp, Op: &plan.Op{
			Name:      plan.OpPut,
			Path:      f.Path,
			Content:   &content,
			SHA512:    hex.EncodeToString(sum[:]),
			Mode:      f.Mode,
			Owner:     f.Owner,
			Group:     f.Group,
			Validate:  cloneText(f.Validate),
			Privilege: plan.Elevated,
		}}}, nil
	case r.Directory != nil:
		x := r.Directory
		return []plan.Step{{Type: plan.StepOp, Op: &plan.Op{
			Name:      plan.OpDir,
			Path:      x.Path,
			Mode:      x.Mode,
			Owner:     x.Owner,
			Group:     x.Group,
			Privilege: plan.Elevated,
		}}}, nil
	case r.Link != nil:
		target := r.Link.Target
		return []plan.Step{{Type: plan.StepOp, Op: &plan.Op{
			Name:      plan.OpLink,
			Path:      r.Link.Path,
			Target:    &target,
			Privilege: plan.Elevated,
		}}}, nil
	case r.Script != nil:
		s := r.Script
		return []plan.Step{{Type: plan.StepCommand, Command: &plan.Command{
			Run:       s.Run,
			Cwd:       s.Cwd,
			Env:       maps.Clone(s.Env),
			Privilege: plan.Login,
		}}}, nil
	}
	return nil, fmt.Errorf("resource %q: type: no steps for a %q", r.ID, r.Type)
}

// clone copies a resource deeply enough that the plan shares no slice, map
// or pointer with the observations it came from.
func clone(r *declaration.Resource) declaration.Resource {
	c := declaration.Resource{Common: r.Common}
	if r.DependsOn != nil {
		c.DependsOn = append([]string(nil), r.DependsOn...)
	}
	switch {
	case r.File != nil:
		f := *r.File
		if f.Content.Inline != nil {
			s := *f.Content.Inline
			f.Content.Inline = &s
		}
		if f.Triggers != nil {
			f.Triggers = append([]string(nil), f.Triggers...)
		}
		f.Validate = cloneText(f.Validate)
		c.File = &f
	case r.Directory != nil:
		x := *r.Directory
		c.Directory = &x
	case r.Link != nil:
		x := *r.Link
		c.Link = &x
	case r.Script != nil:
		x := *r.Script
		x.Env = maps.Clone(x.Env)
		c.Script = &x
	}
	return c
}

func cloneText(t *declaration.Text) *declaration.Text {
	if t == nil {
		return nil
	}
	c := *t
	return &c
}
