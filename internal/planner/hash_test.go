package planner

import (
	"slices"
	"testing"

	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// hashBase is a pass with one change of each kind and a plain reference.
func hashBase() *observation.Observations {
	f := fileRes("conf", "/etc/app.conf", "port = 8080\n")
	declaration.BodyOf[*declaration.File](&f).Mode = "644"
	o := observe(
		absent(f),
		absent(dirRes("dir", "/srv/app")),
		absent(linkRes("cur", declaration.Concat(declaration.Part{Env: "APP"}, declaration.Part{Lit: "/current"}), "/srv/app/v1")),
		absent(scriptRes("build", "test -x /srv/app/bin", "make")),
	)
	o.References = []observation.Reference{{Name: "APP", Value: "/srv/app"}}
	return o
}

func hashOf(t *testing.T, o *observation.Observations, script func(plan.OpName) (plan.Script, bool)) string {
	t.Helper()
	p := mustPlan(t, o)
	h, err := plan.Hash(p, script)
	if err != nil {
		t.Fatalf("Hash: %v", err)
	}
	return h
}

func TestHashStable(t *testing.T) {
	a := hashOf(t, hashBase(), ops.Script)
	b := hashOf(t, hashBase(), ops.Script)
	if a != b {
		t.Errorf("the same observations hash to %s and %s", a, b)
	}
	if len(a) != 64 {
		t.Errorf("plan_hash %q is not 64 hex digits", a)
	}
}

func TestHashCovers(t *testing.T) {
	base := hashOf(t, hashBase(), ops.Script)
	edited := func(name plan.OpName) func(plan.OpName) (plan.Script, bool) {
		return func(n plan.OpName) (plan.Script, bool) {
			s, ok := ops.Script(n)
			if n == name {
				s.Text += "\n"
			}
			return s, ok
		}
	}
	for _, tc := range []struct {
		name   string
		edit   func(o *observation.Observations)
		script func(plan.OpName) (plan.Script, bool)
	}{
		{name: "a content byte", edit: func(o *observation.Observations) {
			*declaration.BodyOf[*declaration.File](&o.Declaration.Resources[0]).Content.Inline = "port = 8081\n"
		}},
		{name: "a mode", edit: func(o *observation.Observations) {
			declaration.BodyOf[*declaration.File](&o.Declaration.Resources[0]).Mode = "640"
		}},
		{name: "a depends_on that leaves the order as it is", edit: func(o *observation.Observations) {
			// cur already runs before dir ("cur" < "dir").
			o.Declaration.Resources[1].DependsOn = []string{"cur"}
		}},
		{name: "the put script's text", script: edited(plan.OpPut)},
		{name: "the dir script's text", script: edited(plan.OpDir)},
		{name: "the link script's text", script: edited(plan.OpLink)},
		{name: "the invocation", script: func(n plan.OpName) (plan.Script, bool) {
			s, ok := ops.Script(n)
			s.Invocation = "sh -eu -s --"
			return s, ok
		}},
		{name: "the user", edit: func(o *observation.Observations) { o.Context.User = "alice" }},
		{name: "HOME", edit: func(o *observation.Observations) { o.Context.Home = "/home/root" }},
		{name: "a plain reference's value", edit: func(o *observation.Observations) {
			o.References[0].Value = "/srv/app2"
		}},
		{name: "a verdict", edit: func(o *observation.Observations) {
			o.Resources[3].Verdict = observation.Drifted
		}},
		{name: "a hold", edit: func(o *observation.Observations) {
			o.Resources[3] = observation.Resource{ID: "build", Verdict: observation.Undetermined, Reason: "timed out after 10s"}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := hashBase()
			if tc.edit != nil {
				tc.edit(o)
			}
			script := ops.Script
			if tc.script != nil {
				script = tc.script
			}
			if got := hashOf(t, o, script); got == base {
				t.Errorf("plan_hash %s didn't change", got)
			}
		})
	}
}

func TestHashDependsOnKeptOrder(t *testing.T) {
	// The depends_on case above must really leave the order alone, or it
	// would test the order instead.
	o := hashBase()
	o.Declaration.Resources[1].DependsOn = []string{"cur"}
	if got, want := changeIDs(mustPlan(t, o)), changeIDs(mustPlan(t, hashBase())); !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

func TestHashRefusesUnknownOp(t *testing.T) {
	p := mustPlan(t, hashBase())
	none := func(plan.OpName) (plan.Script, bool) { return plan.Script{}, false }
	if _, err := plan.Hash(p, none); err == nil {
		t.Error("Hash took a plan whose operations have no script")
	}
}
