package planner

import (
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// spreadHolds returns the plan's held list: the resources detection couldn't
// read, with their reasons, then the changes held behind them, each part in
// execution order.
//
// A hold spreads forward along the edges a resource runs after: a change is
// held when something it runs after is held, directly or through resources
// that are converged. A converged resource changes nothing, so it is never
// held itself; it passes on what it waits on, unreported. What a held
// resource runs after is not held by it: that still runs. Each held resource
// names in waits_on the held resources it waits on, in execution order.
//
// The rule repeats until nothing changes, so a change held behind a held
// change holds what waits on that. With depends_on alone one pass in
// execution order reaches the fixpoint; the loop is there for the reverse
// trigger rule (a source is held when a service it would restart or reload
// is held), which adds holds against execution order.
func spreadHolds(g *graph, order []string, verdicts map[string]observation.Resource) []plan.Hold {
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
	// edge, the held resource itself, or what a converged one waits on.
	waits := map[string]map[string]bool{}
	for changed := true; changed; {
		changed = false
		for _, id := range order {
			w := map[string]bool{}
			for _, dep := range g.after[id] {
				switch {
				case held[dep]:
					w[dep] = true
				case verdicts[dep].Verdict == observation.Converged:
					for h := range waits[dep] {
						w[h] = true
					}
				}
			}
			if len(w) != len(waits[id]) {
				changed = true
			}
			waits[id] = w
			if len(w) > 0 && !held[id] && verdicts[id].Verdict != observation.Converged {
				held[id] = true
				changed = true
			}
		}
	}

	var read, behind []plan.Hold
	for _, id := range order {
		if !held[id] {
			continue
		}
		h := plan.Hold{ID: id, Type: g.byID[id].Type, WaitsOn: sortedByOrder(waits[id], pos)}
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
