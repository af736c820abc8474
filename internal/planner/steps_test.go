package planner

import (
	"bytes"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

func TestStepsPerKind(t *testing.T) {
	content := "line one\nline two\n"
	f := fileRes("conf", "~/app.conf", content)
	declaration.BodyOf[*declaration.File](&f).Mode, declaration.BodyOf[*declaration.File](&f).Owner, declaration.BodyOf[*declaration.File](&f).Group = "640", "root", "adm"
	validate := declaration.Concat(declaration.Part{Lit: "check "}, declaration.Part{Env: "APP"})
	declaration.BodyOf[*declaration.File](&f).Validate = &validate
	d := dirRes("dir", "/srv/app")
	declaration.BodyOf[*declaration.Directory](&d).Mode, declaration.BodyOf[*declaration.Directory](&d).Owner = "755", "www-data"
	l := linkRes("cur", declaration.Concat(declaration.Part{Env: "APP"}, declaration.Part{Lit: "/current"}), "/srv/app/v1")
	s := scriptRes("build", "test -x bin/app", "make all")
	declaration.BodyOf[*declaration.Script](&s).Cwd = "/srv/app"
	declaration.BodyOf[*declaration.Script](&s).Env = map[string]declaration.Text{"GOFLAGS": declaration.Lit("-trimpath"), "TOKEN": declaration.Ref("APP")}

	drift := observation.Difference{Field: "mode", Observed: "600", Desired: "640"}
	p := mustPlan(t, observe(drifted(f, drift), absent(d), absent(l), absent(s)))

	sum := sha512.Sum512([]byte(content))
	want := map[string]struct {
		action plan.Action
		step   plan.Step
	}{
		"conf": {plan.Update, plan.Step{Type: plan.StepOp, Op: &plan.Op{
			Name: plan.OpPut, Path: declaration.Lit("~/app.conf"), Content: &content,
			SHA512: hex.EncodeToString(sum[:]), Mode: "640", Owner: "root", Group: "adm",
			Validate: &validate, Privilege: plan.Elevated,
		}}},
		"dir": {plan.Create, plan.Step{Type: plan.StepOp, Op: &plan.Op{
			Name: plan.OpDir, Path: declaration.Lit("/srv/app"), Mode: "755", Owner: "www-data", Privilege: plan.Elevated,
		}}},
		"cur": {plan.Create, plan.Step{Type: plan.StepOp, Op: &plan.Op{
			Name: plan.OpLink, Path: declaration.BodyOf[*declaration.Link](&l).Path, Target: &declaration.BodyOf[*declaration.Link](&l).Target, Privilege: plan.Elevated,
		}}},
		"build": {plan.Create, plan.Step{Type: plan.StepCommand, Command: &plan.Command{
			Run: declaration.Lit("make all"), Cwd: "/srv/app", Env: declaration.BodyOf[*declaration.Script](&s).Env, Privilege: plan.Login,
		}}},
	}
	if len(p.Changes) != len(want) {
		t.Fatalf("%d changes, want %d", len(p.Changes), len(want))
	}
	for _, c := range p.Changes {
		w := want[c.ID]
		if c.Action != w.action {
			t.Errorf("%s: action %s, want %s", c.ID, c.Action, w.action)
		}
		if len(c.Steps) != 1 || !reflect.DeepEqual(c.Steps[0], w.step) {
			t.Errorf("%s: steps\n got %s\nwant %s", c.ID, js(t, c.Steps), js(t, []plan.Step{w.step}))
		}
	}
	// The resource is carried as declared, references as written, and the
	// drift as detection reported it.
	if got := changeIDs(p); !reflect.DeepEqual(got, []string{"build", "conf", "cur", "dir"}) {
		t.Fatalf("changes in order %v", got)
	}
	conf := p.Changes[1]
	if got, want := js(t, conf.Resource), js(t, f); got != want {
		t.Errorf("resource\n got %s\nwant %s", got, want)
	}
	if !reflect.DeepEqual(conf.Drift, []observation.Difference{drift}) {
		t.Errorf("drift %+v", conf.Drift)
	}
	if got := js(t, declaration.BodyOf[*declaration.Link](&p.Changes[2].Resource).Path); got != `{"$text":[{"$env":"APP"},"/current"]}` {
		t.Errorf("link path %s, want the reference as written", got)
	}
}

func TestPlanCarriesHeader(t *testing.T) {
	s := scriptRes("s", "true", "run")
	declaration.BodyOf[*declaration.Script](&s).Run = declaration.Concat(declaration.Part{Lit: "deploy "}, declaration.Part{Env: "APP"})
	declaration.BodyOf[*declaration.Script](&s).Env = map[string]declaration.Text{"T": declaration.Ref("TOKEN")}
	quiet := scriptRes("quiet", "true", "run")
	declaration.BodyOf[*declaration.Script](&quiet).Run = declaration.Ref("UNUSED")
	o := observe(absent(s), converged(quiet))
	o.Context = observation.Context{Target: "local", User: "alice", Home: "/home/alice"}
	o.References = []observation.Reference{{Name: "APP", Value: "/srv/app"}, {Name: "TOKEN", Secret: true}, {Name: "UNUSED", Value: "x"}}
	o.Unresolved = []string{"EMPTY"}
	p := mustPlan(t, o)
	// The references block keeps what the changes use: UNUSED is named
	// only by a converged resource.
	if p.Format != plan.Format || !p.Target.Local || p.Context != o.Context ||
		!reflect.DeepEqual(p.References, o.References[:2]) || !reflect.DeepEqual(p.Unresolved, o.Unresolved) {
		t.Errorf("header %s", js(t, p))
	}
}

func TestPlanIsPure(t *testing.T) {
	f := fileRes("f", "/f", "x", "d")
	declaration.BodyOf[*declaration.File](&f).Triggers = nil
	s := scriptRes("s", "true", "run")
	declaration.BodyOf[*declaration.Script](&s).Env = map[string]declaration.Text{"A": declaration.Lit("1")}
	o := observe(absent(f), drifted(dirRes("d", "/d")), absent(s), undetermined(dirRes("u", "/u"), "why"))
	before := js(t, o)
	p1 := mustPlan(t, o)
	// Editing the plan must not reach back into the observations.
	*p1.Changes[1].Steps[0].Op.Content = "changed"
	p1.Changes[1].Resource.DependsOn[0] = "changed"
	p1.Changes[2].Steps[0].Command.Env["A"] = declaration.Lit("changed")
	declaration.BodyOf[*declaration.Script](&p1.Changes[2].Resource).Env["A"] = declaration.Lit("changed")
	if after := js(t, o); after != before {
		t.Fatalf("planning or editing the plan changed the observations:\n%s\n%s", before, after)
	}
	p2 := mustPlan(t, o)
	p3 := mustPlan(t, o)
	if js(t, p2) != js(t, p3) {
		t.Errorf("two plans of the same observations differ")
	}
}

func TestEmptyPlanHasChangesList(t *testing.T) {
	p := mustPlan(t, observe(converged(dirRes("a", "/a"))))
	out, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte(`"changes":[]`)) || bytes.Contains(out, []byte(`"held"`)) {
		t.Errorf("empty plan %s", out)
	}
}

func js(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
