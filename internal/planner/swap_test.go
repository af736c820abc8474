package planner

import (
	"reflect"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/kinds/swap"
	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

func swapRes(id string, s declaration.Swap) declaration.Resource {
	return declaration.Resource{Common: declaration.Common{ID: id, Type: declaration.KindSwap}, Body: &s}
}

var (
	swapNoFile   = observation.Difference{Field: swap.FieldFile, Observed: swap.Missing, Desired: swap.Present}
	swapInactive = observation.Difference{Field: swap.FieldActive, Observed: swap.Inactive, Desired: swap.Active}
	swapUnlisted = observation.Difference{Field: swap.FieldFstab, Observed: swap.NotListed, Desired: swap.Listed}
)

// swapOps is each step's name, path and arguments, as one line; every step
// is an operation run as root with a limit.
func swapOps(t *testing.T, c plan.Change) []string {
	t.Helper()
	out := []string{}
	for _, s := range c.Steps {
		if s.Type != plan.StepOp || s.Op == nil {
			t.Fatalf("%s: a step that isn't an operation: %+v", c.ID, s)
		}
		if s.Op.Privilege != plan.Root || s.Op.Timeout <= 0 {
			t.Errorf("%s: %s runs as %s, limit %d: want root and a limit", c.ID, s.Op.Name, s.Op.Privilege, s.Op.Timeout)
		}
		out = append(out, strings.Join(append([]string{string(s.Op.Name), s.Op.Path.String()}, s.Op.Args...), " | "))
	}
	return out
}

// TestSwapSteps: which steps for which drift. An absent swap gets all
// three; one that isn't active is made again and enabled; one that is
// active is neither; only one missing from /etc/fstab is listed.
func TestSwapSteps(t *testing.T) {
	def := swapRes("sw", declaration.Swap{Size: "2G"})
	own := swapRes("sw", declaration.Swap{Size: "512M", Path: "/var/swap/file"})
	make2G, on, fstab := "swap-make | /swapfile | 2G", "swap-on | /swapfile", "swap-fstab | /swapfile"
	for _, c := range []struct {
		name string
		e    entry
		want []string
	}{
		{"absent", absent(def), []string{make2G, on, fstab}},
		{"absent, its own path", absent(own), []string{"swap-make | /var/swap/file | 512M", "swap-on | /var/swap/file", "swap-fstab | /var/swap/file"}},
		{"not active", drifted(def, swapInactive), []string{make2G, on}},
		{"not listed: only the entry", drifted(def, swapUnlisted), []string{fstab}},
		{"neither", drifted(def, swapInactive, swapUnlisted), []string{make2G, on, fstab}},
		{"listed, the file gone", drifted(def, swapNoFile, swapInactive), []string{make2G, on}},
		{"the file gone, not listed", drifted(def, swapNoFile, swapInactive, swapUnlisted), []string{make2G, on, fstab}},
	} {
		t.Run(c.name, func(t *testing.T) {
			wantOneChange(t, c.e, c.want)
		})
	}
}

// A converged swap has no change; a held one is held, and what waits on it
// too.
func TestSwapConvergedAndHeld(t *testing.T) {
	s := swapRes("sw", declaration.Swap{Size: "2G"})
	if p := mustPlan(t, observe(converged(s))); len(p.Changes) != 0 {
		t.Errorf("a converged swap plans %v", changeIDs(p))
	}
	reason := "/swapfile is a symbolic link: Zap won't make, format or enable a swap file through one"
	p := mustPlan(t, observe(undetermined(s, reason), absent(fileRes("f", "/etc/x", "x", "sw"))))
	if len(p.Changes) != 0 || len(p.Held) != 2 || p.Held[0].Reason != reason || !reflect.DeepEqual(p.Held[1].WaitsOn, []string{"sw"}) {
		t.Errorf("held swap: changes %v, held %+v", changeIDs(p), p.Held)
	}
}

// The plan's resource is a copy of the observations'.
func TestSwapClone(t *testing.T) {
	o := observe(absent(swapRes("sw", declaration.Swap{Size: "2G"})))
	p := mustPlan(t, o)
	declaration.BodyOf[*declaration.Swap](&o.Declaration.Resources[0]).Size = "9G"
	if got := declaration.BodyOf[*declaration.Swap](&p.Changes[0].Resource); got == nil || got.Size != "2G" {
		t.Errorf("the plan shares the observations' swap: %+v", got)
	}
}

// wantOneChange checks that observing e plans one change whose steps are
// the operations want (as swapOps spells them), each with its script, and
// that the plan hashes.
func wantOneChange(t *testing.T, e entry, want []string) {
	t.Helper()
	p := mustPlan(t, observe(e))
	if len(p.Changes) != 1 {
		t.Fatalf("%d changes", len(p.Changes))
	}
	if got := swapOps(t, p.Changes[0]); !reflect.DeepEqual(got, want) {
		t.Errorf("steps\n%q\nwant\n%q", got, want)
	}
	if _, err := plan.Hash(p, ops.Script); err != nil {
		t.Errorf("hash: %v", err)
	}
	for _, s := range p.Changes[0].Steps {
		if _, ok := ops.Script(s.Op.Name); !ok {
			t.Errorf("no script for %s", s.Op.Name)
		}
	}
}
