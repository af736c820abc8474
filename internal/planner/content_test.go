package planner

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

func templateRes(id, path, body string, vars map[string]declaration.Var) declaration.Resource {
	return declaration.Resource{
		Common: declaration.Common{ID: id, Type: declaration.KindFile},
		Body: &declaration.File{Path: declaration.Lit(path), Content: declaration.Content{
			Type: declaration.ContentTemplate, Template: &body, Vars: vars, Kinds: map[string]string{"port": "port"},
		}},
	}
}

func sourceRes(id, path string, src declaration.Text) declaration.Resource {
	return declaration.Resource{
		Common: declaration.Common{ID: id, Type: declaration.KindFile},
		Body:   &declaration.File{Path: declaration.Lit(path), Content: declaration.Content{Type: declaration.ContentSource, Path: &src}},
	}
}

func tvars(port string) map[string]declaration.Var {
	p := declaration.Ref(port)
	return map[string]declaration.Var{"port": {Text: &p}, "opt": {JSON: json.RawMessage(`null`)}}
}

// TestStepsTemplateAndSource checks that a template's put carries the
// template, vars and kinds as written, and a source's put the source path,
// with no content or digest of their own; and that the plan reads back
// whole (null in a template variable included).
func TestStepsTemplateAndSource(t *testing.T) {
	tr := templateRes("env", "/etc/app.env", "PORT={{port}}\nOPT={{opt}}\n", tvars("PORT"))
	sr := sourceRes("copy", "/srv/copy.bin", declaration.Concat(declaration.Part{Lit: "~/"}, declaration.Part{Env: "SRC"}))
	o := observe(absent(tr), absent(sr))
	o.References = []observation.Reference{{Name: "PORT", Value: "80"}, {Name: "SRC", Value: "orig.bin"}}
	p := mustPlan(t, o)
	for _, c := range p.Changes {
		op := c.Steps[0].Op
		if op == nil || op.Name != plan.OpPut || op.Content != nil || op.SHA512 != "" || op.From == nil {
			t.Fatalf("%s: step %+v, want a put from its content source", c.ID, c.Steps[0])
		}
		want := map[string]declaration.Content{"env": declaration.BodyOf[*declaration.File](&tr).Content, "copy": declaration.BodyOf[*declaration.File](&sr).Content}[c.ID]
		if !reflect.DeepEqual(*op.From, want) {
			t.Errorf("%s: from %+v, want %+v", c.ID, *op.From, want)
		}
	}
	if got := p.Ops(); !reflect.DeepEqual(got, []plan.OpName{plan.OpPut, plan.OpRead}) {
		t.Errorf("Ops() = %v, want put and read", got)
	}
}

// TestHashCoversTemplateAndSource checks that plan_hash moves with a
// template variable as written and with the read script of a source put,
// and that a plan with no source put doesn't depend on the read script.
func TestHashCoversTemplateAndSource(t *testing.T) {
	scripts := func(read string) func(plan.OpName) (plan.Script, bool) {
		return func(n plan.OpName) (plan.Script, bool) {
			if n == plan.OpRead {
				return plan.Script{Text: read, Invocation: "sh -s --"}, true
			}
			return plan.Script{Text: string(n), Invocation: "sh -s --"}, true
		}
	}
	tmpl := func(port string) *observation.Observations {
		o := observe(absent(templateRes("env", "/etc/app.env", "PORT={{port}}\nOPT={{opt}}\n", tvars(port))))
		o.References = []observation.Reference{{Name: port, Value: "80"}}
		return o
	}
	if hashOf(t, tmpl("PORT"), scripts("a")) == hashOf(t, tmpl("OTHER_PORT"), scripts("a")) {
		t.Error("a variable's reference changed and plan_hash didn't")
	}
	if hashOf(t, tmpl("PORT"), scripts("a")) != hashOf(t, tmpl("PORT"), scripts("b")) {
		t.Error("a plan with no source depends on the read script")
	}
	src := func() *observation.Observations {
		return observe(absent(sourceRes("copy", "/srv/copy.bin", declaration.Lit("/srv/orig.bin"))))
	}
	if hashOf(t, src(), scripts("a")) == hashOf(t, src(), scripts("b")) {
		t.Error("the read script changed and a source plan's hash didn't")
	}
}
