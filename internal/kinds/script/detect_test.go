package script

import (
	"reflect"
	"testing"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/detect/detecttest"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

func TestBuildScript(t *testing.T) {
	env := detecttest.Env(map[string]string{"DIR": "/srv", "TOKEN": "it's", "BAD": "x\uFDD1"})
	d := NewScript(&declaration.Script{
		Check: declaration.Concat(declaration.Part{Lit: "test -d "}, declaration.Part{Env: "DIR"}),
		Run:   declaration.Lit("true"),
		Cwd:   "/tmp",
		Env:   map[string]declaration.Text{"B": declaration.Ref("TOKEN"), "A": declaration.Lit("1")},
	}, env)
	s, ok := d.(*Script)
	if !ok {
		t.Fatalf("want a script detector, got %#v", d)
	}
	want := &detect.Command{Text: "test -d /srv", Cwd: "/tmp", Timeout: 30, Env: []detect.Var{{Name: "A", Value: "1"}, {Name: "B", Value: "it's"}}}
	if !reflect.DeepEqual(s.Command, want) {
		t.Errorf("command %+v, want %+v", s.Command, want)
	}
	bad := NewScript(&declaration.Script{Check: declaration.Lit("true"), Run: declaration.Lit("true"),
		Env: map[string]declaration.Text{"X": declaration.Ref("BAD")}}, env)
	if r := bad.Verdict(nil); r.Reason != "env.X: the reference BAD resolves to a value holding a reference marker character (U+FDD0 or U+FDD1)" {
		t.Errorf("bad env: %+v", r)
	}
}

func TestScriptVerdict(t *testing.T) {
	s := &Script{Command: &detect.Command{Text: "test -e /x", Timeout: vocab.CheckTimeout}}
	if q := s.Queries(); len(q) != 1 || q[0].Op != detect.OpCommand || q[0].Lane != observation.LaneLogin || q[0].Command != s.Command {
		t.Fatalf("queries: %+v", q)
	}
	detecttest.Check(t, s, []detecttest.Case{
		{"exit 0", []detect.Answer{{Status: detect.StatusOK, Exit: 0}}, detect.Converged()},
		{"exit 1", []detect.Answer{{Status: detect.StatusOK, Exit: 1}}, detect.Absent()},
		{"exit 2 (a syntax error, a cwd it can't enter)", []detect.Answer{{Status: detect.StatusOK, Exit: 2}}, detect.Absent()},
		{"exit 124 on its own", []detect.Answer{{Status: detect.StatusOK, Exit: 124}}, detect.Absent()},
		{"timed out", []detect.Answer{detecttest.TimedOut}, detect.Holding("the check timed out after 30s")},
		{"killed", []detect.Answer{{Status: detect.StatusFailed, Detail: "killed by signal 9"}}, detect.Holding("the check gave no exit status: killed by signal 9")},
		{"no answer", []detect.Answer{{}}, detect.Holding("no answer for the read of the check")},
	})
}

// TestWrongAnswerCount: a script's detector given no answers holds.
func TestWrongAnswerCount(t *testing.T) {
	if r := (&Script{Command: &detect.Command{}}).Verdict(nil); r.Verdict != observation.Undetermined {
		t.Errorf("no answers: %+v", r)
	}
}
