package render

import (
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/events"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// TestRefreshAndCommands: the index refresh is a change of Zap's own (type
// zap) that declares nothing; package and service operations read as the
// commands their scripts run, in the plan and in a report's step line
// alike; the wetrun's progress counts the refresh with the resources.
func TestRefreshAndCommands(t *testing.T) {
	ctx := observation.Context{Target: "203.0.113.7", User: "admin"}
	pkg := declaration.Resource{Common: declaration.Common{ID: "chrony", Type: declaration.KindPackage},
		Body: &declaration.Package{From: map[string]string{"apt": "chrony"}}}
	yes := true
	svc := declaration.Resource{Common: declaration.Common{ID: "chronyd", Type: declaration.KindService},
		Body: &declaration.Service{Service: "chrony", Enabled: &yes, Running: &yes}}
	op := func(name string, args ...string) plan.Step {
		return plan.Step{Type: plan.StepOp, Op: &plan.Op{Name: plan.OpName(name), Args: args, Privilege: plan.Root}}
	}
	p := &plan.Plan{Context: ctx, Changes: []plan.Change{
		{ID: "cache-update-apt", Type: plan.KindZap, Action: plan.Create, Steps: []plan.Step{op("pkg-update-apt")}},
		{ID: "chrony", Type: declaration.KindPackage, Action: plan.Create, Resource: pkg, Steps: []plan.Step{
			{Type: plan.StepNote, Note: "batch-install-apt-1: chrony, after cache-update-apt"},
			op("pkg-install-apt", "chrony"),
		}},
		{ID: "chronyd", Type: declaration.KindService, Action: plan.Update, Resource: svc, Steps: []plan.Step{
			op("svc-enable", "systemd", "chrony"), op("svc-start", "systemd", "chrony"),
		}},
	}}
	var b strings.Builder
	for i := range p.Changes {
		Change(&b, p, &p.Changes[i], false, "")
	}
	want := `[+] cache-update-apt  zap
    = sudo apt-get update -q -o DPkg::Lock::Timeout=120
[+] chrony  package
    from: apt chrony
    # batch-install-apt-1: chrony, after cache-update-apt
    = sudo apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=120 -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold -- chrony
[~] chronyd  service
    service: chrony
    enabled: true
    running: true
    = sudo systemctl enable -- chrony
    = sudo systemctl start -- chrony
`
	if got := b.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	for _, c := range p.Changes {
		for _, s := range c.Steps {
			if s.Op == nil {
				continue
			}
			if got, want := execute.Summary(s, "root", false), OpSummary(ctx, s.Op); got != want {
				t.Errorf("execute.Summary %q, OpSummary %q", got, want)
			}
		}
	}

	var out strings.Builder
	pr := NewProgress(&out)
	pr.Event(&events.Event{Event: events.RunStarted, Changes: 3})
	for _, c := range p.Changes {
		pr.Event(&events.Event{Event: events.ChangeOK, ID: c.ID, Type: c.Type})
	}
	pr.Event(&events.Event{Event: events.RunOK, OK: 3})
	wantOut := "Applying 3 change(s):\n  ok       cache-update-apt  zap\n  ok       chrony  package\n  ok       chronyd  service\nApplied: 3 ok\n"
	if out.String() != wantOut {
		t.Errorf("progress:\n%s\nwant:\n%s", out.String(), wantOut)
	}
}
