package planner

import (
	"reflect"
	"slices"
	"testing"

	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

func TestHolds(t *testing.T) {
	for _, tc := range []struct {
		name    string
		es      []entry
		changes []string
		held    []plan.Hold
	}{
		{
			name: "held alone",
			es: []entry{
				undetermined(fileRes("a", "/a", "x"), "timed out after 10s"),
				absent(dirRes("b", "/b")),
			},
			changes: []string{"b"},
			held:    []plan.Hold{{ID: "a", Type: declaration.KindFile, Reason: "timed out after 10s"}},
		},
		{
			name: "spreads to a change that depends on it",
			es: []entry{
				undetermined(fileRes("a", "/a", "x"), "unreadable"),
				absent(scriptRes("b", "true", "make", "a")),
			},
			changes: []string{},
			held: []plan.Hold{
				{ID: "a", Type: declaration.KindFile, Reason: "unreadable"},
				{ID: "b", Type: declaration.KindScript, WaitsOn: []string{"a"}},
			},
		},
		{
			name: "spreads through a converged resource, unreported",
			es: []entry{
				undetermined(fileRes("a", "/a", "x"), "unreadable"),
				converged(dirRes("m", "/m", "a")),
				drifted(dirRes("z", "/z", "m")),
			},
			changes: []string{},
			held: []plan.Hold{
				{ID: "a", Type: declaration.KindFile, Reason: "unreadable"},
				{ID: "z", Type: declaration.KindDirectory, WaitsOn: []string{"a"}},
			},
		},
		{
			name: "not backwards: what a held resource depends on still runs",
			es: []entry{
				undetermined(fileRes("a", "/d/a", "x", "d"), "unreadable"),
				absent(dirRes("d", "/d")),
			},
			changes: []string{"d"},
			held:    []plan.Hold{{ID: "a", Type: declaration.KindFile, Reason: "unreadable"}},
		},
		{
			name: "a change held behind a held change holds what waits on it",
			es: []entry{
				undetermined(fileRes("a", "/a", "x"), "unreadable"),
				absent(dirRes("b", "/b", "a")),
				converged(dirRes("c", "/c", "b")),
				absent(dirRes("d", "/d", "c")),
				absent(dirRes("e", "/e")),
			},
			changes: []string{"e"},
			held: []plan.Hold{
				{ID: "a", Type: declaration.KindFile, Reason: "unreadable"},
				{ID: "b", Type: declaration.KindDirectory, WaitsOn: []string{"a"}},
				{ID: "d", Type: declaration.KindDirectory, WaitsOn: []string{"b"}},
			},
		},
		{
			name: "a change that depends on a change that runs is not held",
			es: []entry{
				undetermined(fileRes("a", "/a", "x"), "unreadable"),
				absent(dirRes("b", "/b")),
				absent(dirRes("c", "/c", "b")),
				converged(dirRes("k", "/k", "a")),
			},
			changes: []string{"b", "c"},
			held:    []plan.Hold{{ID: "a", Type: declaration.KindFile, Reason: "unreadable"}},
		},
		{
			name: "read failures first, then held behind, each in execution order",
			es: []entry{
				absent(dirRes("b", "/b", "z")),
				undetermined(dirRes("z", "/z"), "z unreadable"),
				absent(dirRes("c", "/c", "m", "z")),
				undetermined(dirRes("m", "/m"), "m unreadable"),
				absent(dirRes("y", "/y", "m")),
			},
			changes: []string{},
			held: []plan.Hold{
				{ID: "m", Type: declaration.KindDirectory, Reason: "m unreadable"},
				{ID: "z", Type: declaration.KindDirectory, Reason: "z unreadable"},
				// Execution order is m, y (freed by m), z, b, c.
				{ID: "y", Type: declaration.KindDirectory, WaitsOn: []string{"m"}},
				{ID: "b", Type: declaration.KindDirectory, WaitsOn: []string{"z"}},
				{ID: "c", Type: declaration.KindDirectory, WaitsOn: []string{"m", "z"}},
			},
		},
		{
			name: "an unreadable resource behind another names both",
			es: []entry{
				undetermined(dirRes("a", "/a"), "a unreadable"),
				undetermined(dirRes("b", "/b", "a"), "b unreadable"),
			},
			changes: []string{},
			held: []plan.Hold{
				{ID: "a", Type: declaration.KindDirectory, Reason: "a unreadable"},
				{ID: "b", Type: declaration.KindDirectory, Reason: "b unreadable", WaitsOn: []string{"a"}},
			},
		},
		{
			name: "waits_on in execution order, through converged resources and directly",
			es: []entry{
				undetermined(dirRes("q", "/q", "p"), "q unreadable"),
				undetermined(dirRes("p", "/p"), "p unreadable"),
				converged(dirRes("k1", "/k1", "q")),
				converged(dirRes("k2", "/k2", "k1", "p")),
				absent(dirRes("a", "/a", "k2", "q")),
			},
			changes: []string{},
			held: []plan.Hold{
				{ID: "p", Type: declaration.KindDirectory, Reason: "p unreadable"},
				{ID: "q", Type: declaration.KindDirectory, Reason: "q unreadable", WaitsOn: []string{"p"}},
				{ID: "a", Type: declaration.KindDirectory, WaitsOn: []string{"p", "q"}},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := mustPlan(t, observe(tc.es...))
			if got := changeIDs(p); !slices.Equal(got, tc.changes) {
				t.Errorf("changes %v, want %v", got, tc.changes)
			}
			if !reflect.DeepEqual(p.Held, tc.held) {
				t.Errorf("held\n got %+v\nwant %+v", p.Held, tc.held)
			}
		})
	}
}

// TestHeldKindNotPlanned checks that a resource of a kind zap-detect has no
// detector for, held undetermined, is never planned, and holds what waits on
// it.
func TestHeldKindNotPlanned(t *testing.T) {
	pkg := declaration.Resource{
		Common: declaration.Common{ID: "curl", Type: declaration.KindPackage},
		Body:   &declaration.Package{From: map[string]string{"apt": "curl"}},
	}
	p := mustPlan(t, observe(
		undetermined(pkg, "this zap can't read package resources yet"),
		absent(scriptRes("fetch", "test -f /x", "curl -o /x https://example.com", "curl")),
		absent(dirRes("d", "/d")),
	))
	if got := changeIDs(p); !slices.Equal(got, []string{"d"}) {
		t.Errorf("changes %v, want [d]", got)
	}
	want := []plan.Hold{
		{ID: "curl", Type: declaration.KindPackage, Reason: "this zap can't read package resources yet"},
		{ID: "fetch", Type: declaration.KindScript, WaitsOn: []string{"curl"}},
	}
	if !reflect.DeepEqual(p.Held, want) {
		t.Errorf("held %+v, want %+v", p.Held, want)
	}
}
