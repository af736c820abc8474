package planner

import (
	"container/heap"
	"fmt"
	"maps"
	"sort"
	"strings"

	"github.com/zap-go/zap/pkg/declaration"
)

// graph holds the declared resources and the edges between them. after[id]
// lists what id runs after, each once, sorted: its depends_on and its
// trigger edges (a service after each source that triggers it: what it
// restart_on / reload_on and each file whose triggers name it). Both order
// the same way; hold.go spreads holds along trigger edges in reverse too.
type graph struct {
	ids   []string // every id, sorted
	byID  map[string]*declaration.Resource
	after map[string][]string
	// sources[svc] lists the trigger sources of the service svc, sorted by
	// id, each with the action its change fires (triggers.go).
	sources map[string][]edge
	// deps[id] is the set of what id names in depends_on.
	deps map[string]map[string]bool
}

// newGraph builds the graph of rs, refusing an id declared twice and an edge
// to an id nobody declares.
func newGraph(rs []declaration.Resource) (*graph, error) {
	g := &graph{byID: make(map[string]*declaration.Resource, len(rs)), after: make(map[string][]string, len(rs)), deps: map[string]map[string]bool{}}
	for i := range rs {
		r := &rs[i]
		if g.byID[r.ID] != nil {
			return nil, fmt.Errorf("resource %q: id declared twice", r.ID)
		}
		g.byID[r.ID] = r
		g.ids = append(g.ids, r.ID)
	}
	sort.Strings(g.ids)
	sources, err := triggerEdges(g)
	if err != nil {
		return nil, err
	}
	g.sources = sources
	for _, id := range g.ids {
		seen := map[string]bool{}
		var after []string
		for _, dep := range g.byID[id].DependsOn {
			if g.byID[dep] == nil {
				return nil, fmt.Errorf("resource %q: depends_on: no resource has the id %q", id, dep)
			}
			if dep == id {
				return nil, fmt.Errorf("resource %q: depends_on: a resource can't depend on itself", id)
			}
			if !seen[dep] {
				seen[dep] = true
				after = append(after, dep)
			}
		}
		g.deps[id] = maps.Clone(seen)
		for _, e := range sources[id] {
			if !seen[e.id] {
				seen[e.id] = true
				after = append(after, e.id)
			}
		}
		sort.Strings(after)
		g.after[id] = after
	}
	return g, nil
}

// drain takes the ready nodes one at a time, the least first as ready
// orders them, each taken node freeing those that waited on it (before) and
// on nothing else still waiting (waiting counts what each node waits on; it
// is left at what each untaken node still waits on). It returns the nodes
// in the order taken.
func drain(ready heap.Interface, before map[string][]string, waiting map[string]int) []string {
	var out []string
	for ready.Len() > 0 {
		n := heap.Pop(ready).(string)
		out = append(out, n)
		for _, next := range before[n] {
			waiting[next]--
			if waiting[next] == 0 {
				heap.Push(ready, next)
			}
		}
	}
	return out
}

// order returns every id in execution order: a resource after everything it
// runs after, and, of the resources ready to run, the least id first. That
// is the one topological order in which resources with no edge between
// them are alphabetical. Each id is taken once, so it ends on any input; a
// cycle leaves ids untaken and is refused, naming them.
func (g *graph) order() ([]string, error) {
	waiting := make(map[string]int, len(g.ids)) // edges not yet satisfied
	before := make(map[string][]string, len(g.ids))
	ready := &idHeap{}
	for _, id := range g.ids {
		waiting[id] = len(g.after[id])
		for _, dep := range g.after[id] {
			before[dep] = append(before[dep], id)
		}
		if waiting[id] == 0 {
			heap.Push(ready, id)
		}
	}
	out := drain(ready, before, waiting)
	if len(out) < len(g.ids) {
		return nil, fmt.Errorf("depends_on: dependency cycle: %s", strings.Join(g.cycle(waiting), " -> "))
	}
	return out, nil
}

// cycle finds one cycle among the ids order couldn't take (waiting > 0),
// as a list of ids with the first repeated at the end. Every such id runs
// after another such id, so walking from the least one along untaken edges
// must come back to an id already on the walk.
func (g *graph) cycle(waiting map[string]int) []string {
	var start string
	for _, id := range g.ids {
		if waiting[id] > 0 {
			start = id
			break
		}
	}
	at := map[string]int{}
	var walk []string
	for id := start; ; {
		if i, ok := at[id]; ok {
			return append(walk[i:], id)
		}
		at[id] = len(walk)
		walk = append(walk, id)
		for _, dep := range g.after[id] {
			if waiting[dep] > 0 {
				id = dep
				break
			}
		}
	}
}

// idHeap is a min-heap of ids.
type idHeap []string

func (h idHeap) Len() int           { return len(h) }
func (h idHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h idHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *idHeap) Push(x any)        { *h = append(*h, x.(string)) }
func (h *idHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
