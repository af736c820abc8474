package planner

import (
	"fmt"
	"github.com/zap-go/zap/pkg/declaration"
	"sort"

	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// The trigger model (resources.md "service" and "Pending triggers",
// detection.md on holds):
//
//   - Edges. A service runs after each of its sources: what it restart_on /
//     reload_on, and each file whose triggers name it. A source in
//     restart_on fires a restart; in reload_on (and not restart_on) a
//     reload; named only by a file's triggers, a restart, the action that
//     always puts the new state in force.
//   - Promotion. A service is promoted (it has a change even when it reads
//     converged) when a source of it has a change in this plan, or a
//     pending marker on the target owes it an action. Its Trigger is the
//     stronger of what fires and what is owed: a restart outranks a reload.
//   - Steps. A promoted service runs its trigger first (on systemd
//     daemon-reload, then try-restart or try-reload-or-restart; on OpenRC
//     rc-service --ifstarted), so a trigger acts only on a service that is
//     running and a start that follows starts it on the new state; then
//     enable or disable, OpenRC's zap of a crashed service and start, or
//     stop; and last the marker's clear, whether or not the service ran.
//     The first source of the service in execution order writes the marker
//     (the owed action) before its own steps; a marker already owing a
//     restart is never lowered to a reload.
//   - Holds: hold.go. A held service gets no marker, so each source whose
//     change would fire it is held too; a converged service whose only
//     change is what a marker owes waits only on its depends_on.

// edge is one trigger source of a service and the action its change fires.
type edge struct {
	id     string
	action observation.TriggerAction
}

// checkEdge refuses the edge e that the resource id declares when it names
// an id nobody declares: a file's trigger must name a service, and a
// service's restart_on and reload_on a resource other than itself.
func (g *graph) checkEdge(id string, e declaration.TriggerEdge) error {
	if e.Field == declaration.FieldTriggers {
		if _, service := g.serviceAt(e.To); !service {
			return fmt.Errorf("resource %q: triggers: no service has the id %q", id, e.To)
		}
		return nil
	}
	if g.byID[e.From] == nil {
		return fmt.Errorf("resource %q: %s: no resource has the id %q", id, e.Field, e.From)
	}
	if e.From == id {
		return fmt.Errorf("resource %q: %s: a service can't trigger itself", id, e.Field)
	}
	return nil
}

// serviceAt returns the service name of the resource id, and whether id
// is a service's.
func (g *graph) serviceAt(id string) (string, bool) {
	if r := g.byID[id]; r != nil {
		return r.ServiceName()
	}
	return "", false
}

// triggerEdges returns, for each service, its trigger sources sorted by id,
// refusing a trigger that names an id nobody declares (the structural check
// refuses it first; the planner doesn't plan around it).
func triggerEdges(g *graph) (map[string][]edge, error) {
	type flags struct{ restart, reload, triggers bool }
	pairs := map[string]map[string]*flags{} // service -> source -> flags
	pair := func(svc, src string) *flags {
		if pairs[svc] == nil {
			pairs[svc] = map[string]*flags{}
		}
		if pairs[svc][src] == nil {
			pairs[svc][src] = &flags{}
		}
		return pairs[svc][src]
	}
	for _, id := range g.ids {
		for _, e := range g.byID[id].TriggerEdges() {
			if err := g.checkEdge(id, e); err != nil {
				return nil, err
			}
			f := pair(e.To, e.From)
			switch e.Field {
			case declaration.FieldTriggers:
				f.triggers = true
			case declaration.FieldRestartOn:
				f.restart = true
			case declaration.FieldReloadOn:
				f.reload = true
			}
		}
	}
	out := map[string][]edge{}
	for svc, srcs := range pairs {
		for src, f := range srcs {
			action := observation.Restart
			if f.reload && !f.restart {
				action = observation.Reload
			}
			out[svc] = append(out[svc], edge{src, action})
		}
		sort.Slice(out[svc], func(i, j int) bool { return out[svc][i].id < out[svc][j].id })
	}
	return out, nil
}

// triggers is what the trigger model decides for one plan.
type triggers struct {
	g        *graph
	pos      map[string]int
	verdicts map[string]observation.Resource
	// owed is the action a pending marker owes each service (by id).
	owed map[string]observation.TriggerAction
	// changes says whether a resource has a change in the plan before
	// holds: absent, drifted, or a promoted service.
	changes map[string]bool
	// firstOf lists, for a resource, the services it is the first
	// changing source of, in the graph's order (mark); made on first use.
	firstOf map[string][]string
}

// newTriggers computes the promotions of every service from the verdicts
// and the pending markers (a marker names a service as its manager knows
// it; one for a service no resource manages is the observations' warning,
// and plans nothing).
func newTriggers(g *graph, order []string, verdicts map[string]observation.Resource, pending []observation.Marker) *triggers {
	t := &triggers{g: g, pos: map[string]int{}, verdicts: verdicts, owed: map[string]observation.TriggerAction{}, changes: map[string]bool{}}
	byName := map[string][]string{}
	for _, id := range g.ids {
		if name, ok := g.byID[id].ServiceName(); ok {
			byName[name] = append(byName[name], id)
		}
	}
	for _, m := range pending {
		for _, id := range byName[m.Service] {
			if m.Action.Outranks(t.owed[id]) {
				t.owed[id] = m.Action
			}
		}
	}
	// Sources run before their services, so one pass in execution order
	// sees every source's change before its service.
	for i, id := range order {
		t.pos[id] = i
		switch verdicts[id].Verdict {
		case observation.Absent, observation.Drifted:
			t.changes[id] = true
		case observation.Converged:
			t.changes[id] = t.owed[id] != "" || len(t.firedBy(id)) > 0
		}
	}
	return t
}

// firedBy lists the sources of svc with a change, in execution order.
func (t *triggers) firedBy(svc string) []edge {
	var out []edge
	for _, e := range t.g.sources[svc] {
		if t.changes[e.id] {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return t.pos[out[i].id] < t.pos[out[j].id] })
	return out
}

// promoted reports whether id is a service with a trigger to run: a source
// changes, or a marker owes it.
func (t *triggers) promoted(id string) bool {
	_, service := t.g.byID[id].ServiceName()
	return service && (t.owed[id] != "" || len(t.firedBy(id)) > 0)
}

// owedOnly reports whether id is a converged service whose only change is
// what a pending marker owes: it waits only on its depends_on.
func (t *triggers) owedOnly(id string) bool {
	return t.verdicts[id].Verdict == observation.Converged && t.owed[id] != "" && len(t.firedBy(id)) == 0
}

// isTriggerOnly reports whether dep is a trigger source of id and not also
// something id depends_on.
func (t *triggers) isTriggerOnly(id, dep string) bool {
	if t.g.deps[id][dep] {
		return false
	}
	for _, e := range t.g.sources[id] {
		if e.id == dep {
			return true
		}
	}
	return false
}

// trigger is the Trigger of svc's change, or nil when it has none.
func (t *triggers) trigger(svc string) *plan.Trigger {
	if !t.promoted(svc) {
		return nil
	}
	tr := &plan.Trigger{Pending: t.owed[svc], Action: t.owed[svc]}
	for _, e := range t.firedBy(svc) {
		tr.By = append(tr.By, e.id)
		if e.action.Outranks(tr.Action) {
			tr.Action = e.action
		}
	}
	return tr
}

// mark puts in front of c's own steps the marker of each service c is the
// first changing source of.
func (t *triggers) mark(c *plan.Change, manager string) {
	if t.firstOf == nil {
		// Once per plan, not once per change: a plan of N changes would
		// otherwise ask every service's sources N times.
		t.firstOf = map[string][]string{}
		for _, svc := range t.g.ids {
			if fired := t.firedBy(svc); len(fired) > 0 {
				t.firstOf[fired[0].id] = append(t.firstOf[fired[0].id], svc)
			}
		}
	}
	var marks []plan.Step
	for _, svc := range t.firstOf[c.ID] {
		name, _ := t.g.byID[svc].ServiceName()
		if m := ledgerMark(manager, name, t.trigger(svc).Action); m != nil {
			marks = append(marks, *m)
		}
	}
	if len(marks) > 0 {
		c.Steps = append(marks, c.Steps...)
	}
}

// ledgerMark is the step that writes svc's marker, or nil on a manager
// with no backend (whose verbs are notes, and owe nothing).
func ledgerMark(manager, svc string, action observation.TriggerAction) *plan.Step {
	if manager != vocab.ManagerSystemd && manager != vocab.ManagerOpenRC {
		return nil
	}
	return &plan.Step{Type: plan.StepOp, Op: &plan.Op{Name: vocab.OpLedgerMark, Args: []string{svc, string(action)}, Privilege: plan.Root, Timeout: vocab.LedgerOpTimeout}}
}
