package planner

import (
	"testing"

	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// entry is one declared resource and the verdict detection gave it.
type entry struct {
	r declaration.Resource
	v observation.Resource
}

func fileRes(id, path, content string, deps ...string) declaration.Resource {
	return declaration.Resource{
		Common: declaration.Common{ID: id, Type: declaration.KindFile, DependsOn: deps},
		Body:   &declaration.File{Path: declaration.Lit(path), Content: declaration.Content{Type: declaration.ContentInline, Inline: &content}},
	}
}

func dirRes(id, path string, deps ...string) declaration.Resource {
	return declaration.Resource{
		Common: declaration.Common{ID: id, Type: declaration.KindDirectory, DependsOn: deps},
		Body:   &declaration.Directory{Path: declaration.Lit(path)},
	}
}

func linkRes(id string, path declaration.Text, target string, deps ...string) declaration.Resource {
	return declaration.Resource{
		Common: declaration.Common{ID: id, Type: declaration.KindLink, DependsOn: deps},
		Body:   &declaration.Link{Path: path, Target: declaration.Lit(target)},
	}
}

func scriptRes(id, check, run string, deps ...string) declaration.Resource {
	return declaration.Resource{
		Common: declaration.Common{ID: id, Type: declaration.KindScript, DependsOn: deps},
		Body:   &declaration.Script{Check: declaration.Lit(check), Run: declaration.Lit(run)},
	}
}

func absent(r declaration.Resource) entry {
	return entry{r, observation.Resource{ID: r.ID, Verdict: observation.Absent}}
}

func converged(r declaration.Resource) entry {
	return entry{r, observation.Resource{ID: r.ID, Verdict: observation.Converged}}
}

func drifted(r declaration.Resource, d ...observation.Difference) entry {
	return entry{r, observation.Resource{ID: r.ID, Verdict: observation.Drifted, Drift: d}}
}

func undetermined(r declaration.Resource, reason string) entry {
	return entry{r, observation.Resource{ID: r.ID, Verdict: observation.Undetermined, Reason: reason}}
}

// observe builds a local pass over es, in declaration order.
func observe(es ...entry) *observation.Observations {
	o := &observation.Observations{
		Format: observation.Format,
		Declaration: declaration.Declaration{
			Format:    declaration.Format,
			Target:    declaration.Target{Local: true},
			Resources: []declaration.Resource{},
		},
		Context:   observation.Context{Target: "local", User: "root", Home: "/root"},
		Batches:   []observation.Batch{{Lane: observation.LaneLogin, Queries: len(es)}},
		Resources: []observation.Resource{},
	}
	for _, e := range es {
		o.Declaration.Resources = append(o.Declaration.Resources, e.r)
		o.Resources = append(o.Resources, e.v)
	}
	return o
}

// mustPlan plans o, which must be valid observations, and checks the plan
// encodes to a document plan.Read takes back unchanged.
func mustPlan(t *testing.T, o *observation.Observations) *plan.Plan {
	t.Helper()
	if err := o.Validate(); err != nil {
		t.Fatalf("the test's observations don't validate: %v", err)
	}
	p, err := Plan(o)
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	out, err := p.Encode()
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	back, err := plan.Read(out)
	if err != nil {
		t.Fatalf("plan.Read of the plan made: %v\n%s", err, out)
	}
	again, err := back.Encode()
	if err != nil || string(again) != string(out) {
		t.Fatalf("the plan doesn't read back to the same bytes (%v):\n%s\n%s", err, out, again)
	}
	return p
}

func changeIDs(p *plan.Plan) []string {
	ids := []string{}
	for _, c := range p.Changes {
		ids = append(ids, c.ID)
	}
	return ids
}
