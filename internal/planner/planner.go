// Package planner computes a plan from one detection pass: the changes that
// converge the target, in execution order, the resources held because they
// couldn't be read (and the changes held behind them), and the header that
// names the machine, account and environment the plan is for.
//
// Plan is a pure function: it reads nothing but its argument (no file, no
// environment, no clock), so the same observations always give the same
// plan, and so the same plan_hash. The hash itself is plan.Hash over the
// result and the operation scripts, computed by the caller.
//
// What it decides:
//
//   - Order: every declared resource is ordered by its edges (depends_on
//     and the trigger edges of services), and among resources
//     with no edge between them alphabetically by id, never by declaration
//     order. A dangling id or a cycle is refused, naming the ids.
//   - Changes: absent is a create, drifted an update, converged no change,
//     undetermined a hold. Each change carries its resource as declared
//     (references as written), its drift, and its steps (steps.go).
//   - Holds: see hold.go.
//   - Triggers: a service is promoted when a source changes or a pending
//     marker owes it; markers are written before the first source and
//     cleared after the service (triggers.go).
//   - Packages: the packages to install go in batches, each one index
//     refresh (a change of Zap's own, cache-update-<manager>) and one
//     install where the whole batch can run, a package after a resource
//     that waits on a package in a later batch; the changes of a batch
//     stand together in the order (packages.go).
package planner

import (
	"fmt"

	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/internal/kinds"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// Plan computes the plan for o, with an empty plan_hash. o should have
// passed observation.Read (or its Validate); Plan still refuses observations
// that don't line up with their declaration, a dangling id and a cycle,
// rather than plan around them.
func Plan(o *observation.Observations) (*plan.Plan, error) {
	d := &o.Declaration
	if len(o.Resources) != len(d.Resources) {
		return nil, fmt.Errorf("resources: %d verdicts for %d declared resources", len(o.Resources), len(d.Resources))
	}
	verdicts := make(map[string]observation.Resource, len(o.Resources))
	for i, r := range o.Resources {
		if want := d.Resources[i].ID; r.ID != want {
			return nil, fmt.Errorf("resources[%d].id: %q, but the declaration's resource %d is %q", i, r.ID, i, want)
		}
		switch r.Verdict {
		case observation.Converged, observation.Drifted, observation.Absent, observation.Undetermined:
		default:
			return nil, fmt.Errorf("resources[%d] (%s).verdict: unknown verdict %q", i, r.ID, r.Verdict)
		}
		verdicts[r.ID] = r
	}
	g, err := newGraph(d.Resources)
	if err != nil {
		return nil, err
	}
	order, err := g.order()
	if err != nil {
		return nil, err
	}
	trig := newTriggers(g, order, verdicts, o.Pending)
	held := spreadHolds(g, order, verdicts, trig)

	target := d.Target
	for _, t := range []**declaration.Text{&target.Host, &target.User, &target.BootstrapUser} {
		if *t != nil {
			c := **t
			*t = &c
		}
	}
	p := &plan.Plan{
		Format:     plan.Format,
		Target:     target,
		Context:    o.Context,
		References: []observation.Reference{},
		Unresolved: append([]string(nil), o.Unresolved...),
		Changes:    []plan.Change{},
		Held:       held,
		Warnings:   append([]string(nil), o.Warnings...),
	}
	isHeld := make(map[string]bool, len(held))
	for _, h := range held {
		isHeld[h.ID] = true
	}
	for _, id := range order {
		v := verdicts[id]
		if isHeld[id] {
			continue
		}
		var action plan.Action
		switch v.Verdict {
		case observation.Absent:
			action = plan.Create
		case observation.Drifted:
			action = plan.Update
		default: // converged: nothing to change, unless a trigger fires or is owed
			if !trig.promoted(id) {
				continue
			}
			action = plan.Update
		}
		r := g.byID[id].Clone()
		c := plan.Change{ID: r.ID, Type: r.Type, Action: action, Resource: r, Trigger: trig.trigger(id)}
		// The kind's steps get a copy of their own, so the plan's steps
		// share nothing with its resources either.
		own := g.byID[id].Clone()
		steps, err := kinds.Of(&own).Steps(&own, kind.Planned{Verdict: v.Verdict, Drift: v.Drift, Target: d.Target, Trigger: c.Trigger, Pin: v.Pin})
		if err != nil {
			return nil, err
		}
		c.Steps = steps
		if action == plan.Update {
			c.Drift = append([]observation.Difference(nil), v.Drift...)
			c.Fingerprint = v.Fingerprint
		}
		trig.mark(&c, d.Target.ServiceManager)
		p.Changes = append(p.Changes, c)
	}
	if err := batchPackages(p, g, order, d.Target.PackageManager); err != nil {
		return nil, err
	}
	p.References = usedReferences(p, o.References)
	return p, nil
}

// usedReferences keeps the references the plan's changes and its target
// use: a review covers the values this run will act with, and a variable
// only a converged resource names changes nothing the run does.
func usedReferences(p *plan.Plan, all []observation.Reference) []observation.Reference {
	used := map[string]bool{}
	for _, n := range p.Target.Refs() {
		used[n] = true
	}
	for i := range p.Changes {
		for _, n := range p.Changes[i].Resource.Refs() {
			used[n] = true
		}
	}
	var out []observation.Reference
	for _, r := range all {
		if used[r.Name] {
			out = append(out, r)
		}
	}
	return out
}
