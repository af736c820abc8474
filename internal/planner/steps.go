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
//	file      = put  path, content and its SHA-512 (inline), or from: the
//	                 template or source as declared; mode, owner, group,
//	                 validate (elevated)
//	directory = dir  path, mode, owner, group (elevated)
//	link      = link path, target (elevated)
//	script    > run, in cwd with env (login)
//	installer = installer url shell (login): fetch whole, then pipe
//	verify    = verify-path path type mode owner not_empty (login), or
//	          > the command assertion's command (login), one per assertion
//	pipeline  > each step's run, in declared order (login)
//	service   = svc-<verb> manager name (root), ledger-mark and
//	                 ledger-clear (root): see triggers.go
//	package   = pkg-install-<manager> names (root), once for each
//	                 install batch, after the batch's index refresh, a
//	                 change of Zap's own: = pkg-update-<manager> (root;
//	                 packages.go)
//	user      = user-account, then user-home, user-groups, user-keys,
//	                 user-sudo for what it declares (root; user.go)
//	swap      = swap-make path size and swap-on path when it isn't
//	                 active, swap-fstab path when it isn't listed (root;
//	                 swap.go)
//	firewall  = firewall-ufw-allow rule for each missing rule, then
//	                 firewall-ufw-default direction policy for each that
//	                 differs, then firewall-ufw-enable; nftables:
//	                 firewall-nft-apply policies rules (root; firewall.go)
//
// Every Text is kept as written: references resolve when the step runs.
func stepsFor(r *declaration.Resource) ([]plan.Step, error) {
	switch {
	case r.File != nil:
		f := r.File
		put := &plan.Op{
			Name:      plan.OpPut,
			Path:      f.Path,
			Mode:      f.Mode,
			Owner:     f.Owner,
			Group:     f.Group,
			Validate:  cloneText(f.Validate),
			Privilege: plan.Elevated,
		}
		switch c := f.Content; {
		case c.Type == declaration.ContentInline && c.Inline != nil:
			content := *c.Inline
			sum := sha512.Sum512([]byte(content))
			put.Content, put.SHA512 = &content, hex.EncodeToString(sum[:])
		case c.Type == declaration.ContentTemplate && c.Template != nil, c.Type == declaration.ContentSource && c.Path != nil:
			// The template and its vars, or the source path, as written:
			// rendered or read when the step runs.
			from := cloneContent(c)
			put.From = &from
		default:
			return nil, fmt.Errorf("resource %q: content: want an inline, template or source content source", r.ID)
		}
		return []plan.Step{{Type: plan.StepOp, Op: put}}, nil
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
	case r.Installer != nil:
		return installerSteps(r.Installer), nil
	case r.Verify != nil:
		return verifySteps(r.Verify), nil
	case r.Pipeline != nil:
		return pipelineSteps(r.Pipeline), nil
	case r.User != nil:
		return userSteps(r.User), nil
	case r.Package != nil:
		// Filled in by the install batches, which know the manager and
		// every package of the plan (packages.go).
		return []plan.Step{}, nil
	case r.Service != nil:
		// Filled in by the trigger model, which knows the manager, the
		// drift and the trigger (triggers.go).
		return []plan.Step{}, nil
	case r.Swap != nil:
		// Filled in from the drift, which says which parts to repair
		// (swap.go).
		return []plan.Step{}, nil
	case r.Firewall != nil:
		// Filled in from the drift, which names the missing rules and the
		// policies that differ (firewall.go).
		return []plan.Step{}, nil
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
		f.Content = cloneContent(f.Content)
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
	case r.Installer != nil:
		x := *r.Installer
		c.Installer = &x
	case r.Verify != nil:
		c.Verify = cloneVerify(r.Verify)
	case r.Pipeline != nil:
		c.Pipeline = clonePipeline(r.Pipeline)
	case r.User != nil:
		c.User = cloneUser(r.User)
	case r.Package != nil:
		c.Package = clonePackage(r.Package)
	case r.Service != nil:
		x := *r.Service
		x.Enabled, x.Running = cloneFlag(x.Enabled), cloneFlag(x.Running)
		x.RestartOn, x.ReloadOn = cloneIDs(x.RestartOn), cloneIDs(x.ReloadOn)
		c.Service = &x
	case r.Swap != nil:
		x := *r.Swap
		c.Swap = &x
	case r.Firewall != nil:
		x := *r.Firewall
		x.Allow = append([]declaration.AllowRule(nil), x.Allow...)
		c.Firewall = &x
	}
	return c
}

// cloneContent copies a file's content source deeply enough to share no
// map or pointer with c.
func cloneContent(c declaration.Content) declaration.Content {
	if c.Inline != nil {
		s := *c.Inline
		c.Inline = &s
	}
	if c.Template != nil {
		s := *c.Template
		c.Template = &s
	}
	if c.Vars != nil {
		vars := make(map[string]declaration.Var, len(c.Vars))
		for k, v := range c.Vars {
			vars[k] = declaration.Var{Text: cloneText(v.Text), JSON: append([]byte(nil), v.JSON...)}
		}
		c.Vars = vars
	}
	c.Kinds = maps.Clone(c.Kinds)
	c.Path, c.URL, c.Auth = cloneText(c.Path), cloneText(c.URL), cloneText(c.Auth)
	if c.Extract != nil {
		x := *c.Extract
		c.Extract = &x
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
