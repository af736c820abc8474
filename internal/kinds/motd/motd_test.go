package motd

import (
	"reflect"
	"testing"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/detect/detecttest"
	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

const doc = `{"format":"zap.declaration/1","resources":[{"id":"m","message":"hi there","path":"/etc/motd","type":"motd"}],"target":{"local":true}}`

// TestDeclared: with the kind registered, a declaration holding a motd
// reads, validates and encodes back to the same bytes, and the body is a
// *Motd; a motd's form is checked.
func TestDeclared(t *testing.T) {
	d, err := declaration.Read([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	if m := declaration.BodyOf[*Motd](&d.Resources[0]); m == nil || m.Message != "hi there" {
		t.Fatalf("body %#v", d.Resources[0].Body)
	}
	if out, err := d.Encode(); err != nil || string(out) != doc {
		t.Errorf("encoded\n%s (%v)\nwant\n%s", out, err, doc)
	}
	if c := d.Resources[0].Clone(); !reflect.DeepEqual(c, d.Resources[0]) || c.Body == d.Resources[0].Body {
		t.Errorf("clone %#v shares or differs", c)
	}
	for body, want := range map[Motd]string{
		{Path: "etc/motd", Message: "x"}:     `resource "m": path: "etc/motd" is not an absolute path`,
		{Path: "/etc/motd", Message: "a\nb"}: `resource "m": message: is one line, with no NUL`,
	} {
		d.Resources[0].Body = &body
		if err := d.Validate(); err == nil || err.Error() != want {
			t.Errorf("%+v: %v, want %s", body, err, want)
		}
	}
}

// TestVerdicts is the read's table: nothing there is absent, the message
// and a line break converged, anything else drifted; no answer holds.
func TestVerdicts(t *testing.T) {
	d := newDetector(&Motd{Path: "/etc/motd", Message: "hi"}, detecttest.Env(nil))
	out := func(exit int, text string) detect.Answer {
		return detect.Answer{Status: detect.StatusOK, Exit: exit, Output: text}
	}
	detecttest.Check(t, d, []detecttest.Case{
		{"absent", []detect.Answer{out(3, "")}, detect.Absent()},
		{"converged", []detect.Answer{out(0, "hi\n")}, detect.Converged()},
		{"no line break", []detect.Answer{out(0, "hi")}, detecttest.Drift(observation.Difference{Field: FieldMessage, Observed: "differs", Desired: "hi"})},
		{"failed", []detect.Answer{out(1, "")}, detect.Holding("reading /etc/motd failed")},
		{"timed out", []detect.Answer{detecttest.TimedOut}, detect.Holding("reading /etc/motd timed out after 30s")},
	})
}

// TestSteps: one write, as the login user, whatever the verdict, with a
// script that ops knows once the kind is listed.
func TestSteps(t *testing.T) {
	r := &declaration.Resource{Common: declaration.Common{ID: "m", Type: Type}, Body: &Motd{Path: "/etc/motd", Message: "hi"}}
	steps, err := Kind.Steps(r, kind.Planned{Verdict: observation.Drifted})
	if err != nil || len(steps) != 1 {
		t.Fatalf("steps %+v (%v)", steps, err)
	}
	op := steps[0].Op
	if op.Name != OpWrite || op.Path.String() != "/etc/motd" || !reflect.DeepEqual(op.Args, []string{"hi"}) || op.Privilege != plan.Login {
		t.Errorf("op %+v", op)
	}
	if got := Kind.Declared(r); !reflect.DeepEqual(got, []kind.Line{{Field: "path", Value: "/etc/motd"}, {Field: "message", Value: "hi"}}) {
		t.Errorf("declared %+v", got)
	}
}
