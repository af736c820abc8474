package planner

import (
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// spreadHolds returns the plan's held list: the resources detection couldn't
// read, with their reasons, then the changes held behind them, each part in
// execution order.
//
// A hold spreads forward along the edges a resource runs after (depends_on
// and the trigger edges from a service to its sources): a change is held
// when something it runs after is held, directly or through resources that
// have no change. Such a resource is never held itself; it passes on what
// it waits on, unreported. What a held resource runs after is not held by
// it: that still runs. Each held resource names in waits_on the held
// resources it waits on, in execution order, but for a source held only
// because its change fires it.
//
// A change that would restart or reload a held service is held too (its
// change would owe an action nothing in the plan runs, and a held service
// gets no marker): this follows trigger edges in reverse, never a plain
// depends_on, and the held source names the service in triggers. One
// exception: a converged service whose only change is what a pending
// marker owes waits only on its depends_on, so a trigger source detection
// couldn't read doesn't hold it.
//
// The two rules repeat until nothing changes, so a source held for its
// trigger also holds what waits on it, and a source that is itself a
// service holds its own sources.
func spreadHolds(g *graph, order []string, verdicts map[string]observation.Resource, t *triggers) []plan.Hold {
	pos := make(map[string]int, len(order))
	for i, id := range order {
		pos[id] = i
	}
	held := map[string]bool{}
	for _, id := range order {
		if verdicts[id].Verdict == observation.Undetermined {
			held[id] = true
		}
	}
	// waits[id] is the set of held resources id waits on: through each
	// edge, the held resource itself, or what a resource with no change
	// waits on. fires[id] are the held services id's change would fire.
	waits := map[string]map[string]bool{}
	fires := map[string]map[string]observation.TriggerAction{}
	for changed := true; changed; {
		changed = false
		for _, id := range order {
			w := map[string]bool{}
			for _, dep := range g.after[id] {
				if t.owedOnly(id) && t.isTriggerOnly(id, dep) {
					continue
				}
				switch {
				case held[dep]:
					w[dep] = true
				case verdicts[dep].Verdict == observation.Converged && !t.changes[dep]:
					for h := range waits[dep] {
						w[h] = true
					}
				}
			}
			if len(w) != len(waits[id]) {
				changed = true
			}
			waits[id] = w
			if len(w) > 0 && !held[id] && t.changes[id] {
				held[id] = true
				changed = true
			}
		}
		for _, svc := range order {
			if !held[svc] {
				continue
			}
			for _, e := range g.sources[svc] {
				if !t.changes[e.id] {
					continue
				}
				if fires[e.id] == nil {
					fires[e.id] = map[string]observation.TriggerAction{}
				}
				fires[e.id][svc] = e.action
				if !held[e.id] {
					held[e.id] = true
					changed = true
				}
			}
		}
	}

	var read, behind []plan.Hold
	shown := map[string]map[string]bool{}
	for _, id := range order {
		if !held[id] {
			continue
		}
		// A held source whose hold comes only from firing id is not
		// something id waits on: it waits on id. (Sources come first in
		// the order, so shown[dep] is known.)
		w := map[string]bool{}
		for dep := range waits[id] {
			_, firesID := fires[dep][id]
			if !(firesID && len(fires[dep]) == 1 && len(shown[dep]) == 0 && verdicts[dep].Verdict != observation.Undetermined) {
				w[dep] = true
			}
		}
		shown[id] = w
		h := plan.Hold{ID: id, Type: g.byID[id].Type, WaitsOn: sortedByOrder(w, pos)}
		for _, svc := range order {
			if a, ok := fires[id][svc]; ok {
				h.Triggers = append(h.Triggers, plan.Fire{ID: svc, Action: a})
			}
		}
		if v := verdicts[id]; v.Verdict == observation.Undetermined {
			h.Reason = v.Reason
			read = append(read, h)
		} else {
			behind = append(behind, h)
		}
	}
	return append(read, behind...)
}

func sortedByOrder(set map[string]bool, pos map[string]int) []string {
	if len(set) == 0 {
		return nil
	}
	out := make([]string, len(pos))
	n := 0
	for id := range set {
		out[pos[id]] = id
		n++
	}
	ids := make([]string, 0, n)
	for _, id := range out {
		if id != "" {
			ids = append(ids, id)
		}
	}
	return ids
}
