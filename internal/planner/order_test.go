package planner

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/observation"
)

func TestOrderTiesByID(t *testing.T) {
	// Declared z, b, a with no edge between them: alphabetical, not
	// declaration order.
	p := mustPlan(t, observe(
		absent(dirRes("z", "/z")),
		absent(dirRes("b", "/b")),
		absent(dirRes("a", "/a")),
	))
	if got, want := changeIDs(p), []string{"a", "b", "z"}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

func TestOrderDependsOnFirst(t *testing.T) {
	// a runs after z; b is free, so it comes first; then z, which frees a.
	p := mustPlan(t, observe(
		absent(dirRes("a", "/z/a", "z")),
		absent(dirRes("b", "/b")),
		absent(dirRes("z", "/z")),
	))
	if got, want := changeIDs(p), []string{"b", "z", "a"}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

func TestOrderThroughConvergedResource(t *testing.T) {
	// c runs after b, b after a. b is converged, so it is no change, but
	// the order it imposes still holds: a before c.
	p := mustPlan(t, observe(
		absent(dirRes("c", "/c", "b")),
		converged(dirRes("b", "/b", "a")),
		absent(dirRes("a", "/a")),
		absent(dirRes("0", "/0")),
	))
	if got, want := changeIDs(p), []string{"0", "a", "c"}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

func TestOrderRefusesCycle(t *testing.T) {
	o := observe(
		absent(dirRes("a", "/a", "c")),
		absent(dirRes("b", "/b", "a")),
		absent(dirRes("c", "/c", "b")),
		absent(dirRes("d", "/d")),
	)
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Errorf("Validate: %v, want a cycle refused", err)
	}
	// The planner refuses it on its own too, naming the ids.
	_, err := Plan(o)
	if err == nil {
		t.Fatal("Plan accepted a cycle")
	}
	if want := "dependency cycle: a -> c -> b -> a"; !strings.Contains(err.Error(), want) {
		t.Errorf("Plan: %v, want it to say %q", err, want)
	}
}

func TestOrderRefusesDanglingAndSelf(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    *observation.Observations
		want string
	}{
		{"dangling", observe(absent(dirRes("a", "/a", "ghost"))), `resource "a": depends_on: no resource has the id "ghost"`},
		{"self", observe(absent(dirRes("a", "/a", "a"))), `resource "a": depends_on: a resource can't depend on itself`},
		{"twice", observe(absent(dirRes("a", "/a")), absent(dirRes("a", "/b"))), `resource "a": id declared twice`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Plan(tc.o); err == nil || err.Error() != tc.want {
				t.Errorf("Plan: %v, want %q", err, tc.want)
			}
		})
	}
}

func TestPlanRefusesMismatchedVerdicts(t *testing.T) {
	o := observe(absent(dirRes("a", "/a")), absent(dirRes("b", "/b")))
	o.Resources[0].ID, o.Resources[1].ID = "b", "a"
	if _, err := Plan(o); err == nil || !strings.Contains(err.Error(), `resources[0].id: "b"`) {
		t.Errorf("Plan: %v, want the mismatched id named", err)
	}
	o.Resources = o.Resources[:1]
	if _, err := Plan(o); err == nil || !strings.Contains(err.Error(), "1 verdicts for 2 declared resources") {
		t.Errorf("Plan: %v, want the count refused", err)
	}
	o = observe(absent(dirRes("a", "/a")))
	o.Resources[0].Verdict = "maybe"
	if _, err := Plan(o); err == nil || !strings.Contains(err.Error(), `unknown verdict "maybe"`) {
		t.Errorf("Plan: %v, want the verdict refused", err)
	}
}

// TestOrderRandomGraphs plans many random graphs, cyclic ones included, and
// checks that each either is refused as a cycle (and Declaration.Cycle
// agrees) or is ordered so that every resource follows what it depends on,
// and a resource comes before a smaller id only when that one depends on it.
func TestOrderRandomGraphs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 2000; n++ {
		size := 1 + rng.IntN(9)
		var es []entry
		for range size {
			id := fmt.Sprintf("r%d", rng.IntN(1000))
			for slices.ContainsFunc(es, func(e entry) bool { return e.r.ID == id }) {
				id += "x"
			}
			es = append(es, absent(dirRes(id, "/"+id)))
		}
		for i := range es {
			for j := range es {
				if i != j && rng.IntN(4) == 0 {
					es[i].r.DependsOn = append(es[i].r.DependsOn, es[j].r.ID)
				}
			}
		}
		o := observe(es...)
		p, err := Plan(o)
		cycle := o.Declaration.Cycle()
		if cycle != nil {
			if err == nil || !strings.Contains(err.Error(), "dependency cycle") {
				t.Fatalf("graph %d has the cycle %v, and Plan said %v", n, cycle, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("graph %d: %v", n, err)
		}
		order := changeIDs(p)
		if len(order) != size {
			t.Fatalf("graph %d: %d changes for %d resources", n, len(order), size)
		}
		pos := map[string]int{}
		for i, id := range order {
			pos[id] = i
		}
		deps := map[string][]string{}
		for _, e := range es {
			deps[e.r.ID] = e.r.DependsOn
			for _, d := range e.r.DependsOn {
				if pos[d] > pos[e.r.ID] {
					t.Fatalf("graph %d: %s runs before %s, which it depends on: %v", n, e.r.ID, d, order)
				}
			}
		}
		// A smaller id taken later was not ready earlier: it became ready
		// only when the one before it ran, so it depends on that one.
		for i := 0; i+1 < len(order); i++ {
			if order[i] > order[i+1] && !slices.Contains(deps[order[i+1]], order[i]) {
				t.Fatalf("graph %d: %s before %s with no edge between them: %v", n, order[i], order[i+1], order)
			}
		}
	}
}
