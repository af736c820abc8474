package planner

import (
	"container/heap"
	"fmt"
	"strconv"
	"strings"

	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/plan"
)

// Package installs are batched (resources.md, package). The packages a plan
// installs go in numbered batches, batch-install-<manager>-N:
//
//   - A package is in batch 1, unless it waits on another resource (its
//     depends_on, directly or through resources it waits on) that waits on
//     a package this plan installs: then it is in the batch after that
//     package's. A package that waits on a package directly installs in the
//     same batch as it (or a later one): the manager orders the two itself.
//   - Each batch is one install of all its names (pkg-install-<manager>),
//     after a refresh of the manager's index (pkg-update-<manager>): the
//     automatic cache-update step, a change of Zap's own. A later batch
//     refreshes again, since what it waited on (an apt_repo, a script) may
//     have added a repository.
//   - A batch runs where all of it can: after everything any of its
//     packages waits on, and before anything that waits on one of them.
//     The plan's order is the one topological order of the graph in which
//     each batch is a single node, and the ready node first in the plan's
//     own order; so the changes of a batch stand side by side.
//
// How a batch reads in the plan: the batch opens with the index refresh, a
// change of Zap's own (type zap, no resource: plan.KindZap) whose id is
// cache-update-<manager> for batch 1 and cache-update-<manager>-N for
// batch N, its one step the refresh, as root. Then every package keeps a
// change of its own, under its id, so a report and the JSON events name
// each one. The first package change carries the batch's steps: a note
// naming the batch and its packages, and the one install. Each other
// change of the batch holds one note saying which change installs it; it
// has nothing to run, and it is skipped when the batch's change fails (as
// the whole batch is when the refresh fails). A declared resource whose id
// is a refresh's the plan needs is refused: the two changes would share
// an id.
//
// Converged and held packages are in no batch: a resource that waits on a
// converged package waits on nothing this plan does, and a batch exists
// only for packages this plan installs, so held packages alone refresh
// nothing.

// Timeouts of the package operations, in seconds: an index refresh and an
// install fetch over the network.
const (
	pkgUpdateTimeout  = 600
	pkgInstallTimeout = 1800
)

// BatchName is the name of a manager's install batch n:
// batch-install-apt-1.
func BatchName(manager string, n int) string {
	return "batch-install-" + manager + "-" + strconv.Itoa(n)
}

// RefreshID is the id of the index refresh in front of a manager's install
// batch n, a change of Zap's own: cache-update-apt for batch 1,
// cache-update-apt-2 for batch 2.
func RefreshID(manager string, n int) string {
	if n == 1 {
		return "cache-update-" + manager
	}
	return "cache-update-" + manager + "-" + strconv.Itoa(n)
}

// batchPackages gives p's package changes their batches' steps and orders
// p's changes so each batch's changes stand together where the batch runs.
// order is the graph's execution order, which p.Changes follows.
func batchPackages(p *plan.Plan, g *graph, order []string, manager string) error {
	changeAt := map[string]int{}
	packages := 0
	for i, c := range p.Changes {
		changeAt[c.ID] = i
		if _, ok := c.Resource.PackageNames(); ok {
			packages++
		}
	}
	if packages == 0 {
		return nil
	}
	if err := checkPackageManager(p, manager); err != nil {
		return err
	}
	planned := func(id string) bool {
		i, ok := changeAt[id]
		if !ok {
			return false
		}
		_, pkg := p.Changes[i].Resource.PackageNames()
		return pkg
	}
	batch := assignBatches(g, order, planned)
	// The order with each batch as one node.
	node := func(id string) string {
		if planned(id) {
			return "\x00batch " + strconv.Itoa(batch[id])
		}
		return id
	}
	nodes, members := batchNodes(g, order, node)
	var changes []plan.Change
	for _, n := range nodes {
		ids := members[n]
		if strings.HasPrefix(n, "\x00batch ") {
			b := batch[ids[0]]
			if id := RefreshID(manager, b); g.byID[id] != nil {
				return fmt.Errorf("resource %q: the id of Zap's own index refresh in front of %s; give the resource another id", id, BatchName(manager, b))
			}
			changes = append(changes, batchChanges(p, changeAt, ids, manager, b)...)
		} else if i, ok := changeAt[n]; ok {
			changes = append(changes, p.Changes[i])
		}
	}
	if len(nodes) != len(members) {
		// Batches are built so that none can wait on itself; a plan
		// that would is refused rather than run out of order.
		return fmt.Errorf("packages: the install batches wait on each other in a cycle")
	}
	p.Changes = changes
	return nil
}

// checkPackageManager refuses a plan that installs a package on a target
// whose package manager has no backend, or that declares none.
func checkPackageManager(p *plan.Plan, manager string) error {
	switch manager {
	case vocab.ManagerApt, vocab.ManagerApk:
		return nil
	}
	for _, c := range p.Changes {
		if _, ok := c.Resource.PackageNames(); ok {
			if manager == "" {
				return fmt.Errorf("resource %q: a package to install, and the target declares no package_manager", c.ID)
			}
			return fmt.Errorf("resource %q: a package to install, and the target's package_manager %s has no backend", c.ID, manager)
		}
	}
	return nil
}

// assignBatches numbers the batch of each package this plan installs
// (planned): batch 1, or the batch after the highest one it waits on
// through a resource that isn't such a package.
func assignBatches(g *graph, order []string, planned func(id string) bool) map[string]int {
	// batch[id] for a package this plan installs; reach[id] for anything
	// else: the highest batch it waits on (0: none).
	batch, reach := map[string]int{}, map[string]int{}
	for _, id := range order {
		b, r := 1, 0
		for _, dep := range g.after[id] {
			switch {
			case planned(dep):
				b = max(b, batch[dep])
				r = max(r, batch[dep])
			case reach[dep] > 0:
				b = max(b, reach[dep]+1)
				r = max(r, reach[dep])
			}
		}
		if planned(id) {
			batch[id] = b
			reach[id] = b
		} else {
			reach[id] = r
		}
	}
	return batch
}

// batchNodes orders the graph with each id replaced by its node (a batch
// stands for all its packages): the one topological order that takes the
// ready node first in order's own order. It returns the nodes in that order
// (fewer than members when the nodes wait on each other in a cycle) and
// each node's ids in order.
func batchNodes(g *graph, order []string, node func(id string) string) ([]string, map[string][]string) {
	rank := map[string]int{} // a node's place: its first id's in order
	members := map[string][]string{}
	for i, id := range order {
		n := node(id)
		if _, ok := rank[n]; !ok {
			rank[n] = i
		}
		members[n] = append(members[n], id)
	}
	waiting := map[string]int{}
	before := map[string][]string{}
	edge := map[[2]string]bool{}
	for _, id := range order {
		for _, dep := range g.after[id] {
			a, b := node(dep), node(id)
			if a == b || edge[[2]string{a, b}] {
				continue
			}
			edge[[2]string{a, b}] = true
			waiting[b]++
			before[a] = append(before[a], b)
		}
	}
	ready := &rankHeap{rank: rank}
	for n := range members {
		if waiting[n] == 0 {
			heap.Push(ready, n)
		}
	}
	return drain(ready, before, waiting), members
}

// batchChanges returns the changes of batch n, whose packages are ids in
// execution order: the index refresh, Zap's own change; then the packages',
// the first carrying the batch's install, the others a note.
func batchChanges(p *plan.Plan, changeAt map[string]int, ids []string, manager string, n int) []plan.Change {
	name, refresh := BatchName(manager, n), RefreshID(manager, n)
	var names []string
	seen := map[string]bool{}
	for _, id := range ids {
		from, _ := p.Changes[changeAt[id]].Resource.PackageNames()
		pkg := from[manager]
		if !seen[pkg] {
			seen[pkg] = true
			names = append(names, pkg)
		}
	}
	first := ids[0]
	out := make([]plan.Change, 0, len(ids)+1)
	out = append(out, plan.Change{ID: refresh, Type: plan.KindZap, Action: plan.Create, Steps: []plan.Step{
		{Type: plan.StepOp, Op: &plan.Op{Name: vocab.OpPkgUpdate(manager), Privilege: plan.Root, Timeout: pkgUpdateTimeout}},
	}})
	for i, id := range ids {
		c := p.Changes[changeAt[id]]
		if i == 0 {
			c.Steps = []plan.Step{
				{Type: plan.StepNote, Note: fmt.Sprintf("%s: %s, after %s", name, strings.Join(names, " "), refresh)},
				{Type: plan.StepOp, Op: &plan.Op{Name: vocab.OpPkgInstall(manager), Args: names, Privilege: plan.Root, Timeout: pkgInstallTimeout}},
			}
		} else {
			c.Steps = []plan.Step{{Type: plan.StepNote, Note: fmt.Sprintf("installed by %s's install (%s)", first, name)}}
		}
		out = append(out, c)
	}
	return out
}

// rankHeap is a min-heap of nodes by their rank.
type rankHeap struct {
	nodes []string
	rank  map[string]int
}

func (h *rankHeap) Len() int           { return len(h.nodes) }
func (h *rankHeap) Less(i, j int) bool { return h.rank[h.nodes[i]] < h.rank[h.nodes[j]] }
func (h *rankHeap) Swap(i, j int)      { h.nodes[i], h.nodes[j] = h.nodes[j], h.nodes[i] }
func (h *rankHeap) Push(x any)         { h.nodes = append(h.nodes, x.(string)) }
func (h *rankHeap) Pop() any {
	x := h.nodes[len(h.nodes)-1]
	h.nodes = h.nodes[:len(h.nodes)-1]
	return x
}
