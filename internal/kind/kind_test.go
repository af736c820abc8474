package kind

import (
	"errors"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// link is a Def whose parts report what they were handed.
var link = Def[*declaration.Link]{
	Name: declaration.KindLink,
	Read: func(l *declaration.Link, env detect.Env) detect.Detector {
		return detect.Held("read " + l.Path.String() + " of " + env.Resource.ID)
	},
	Plan: func(l *declaration.Link, at Planned) ([]plan.Step, error) {
		if at.Verdict == observation.Drifted {
			return nil, errors.New("target: can't")
		}
		return []plan.Step{{Type: plan.StepNote, Note: l.Target.String() + " of " + at.ID}}, nil
	},
	As: plan.Elevated,
}

// shown is link with a Show part.
var shown = func() Def[*declaration.Link] {
	d := link
	d.Show = func(l *declaration.Link, id string) []Line { return []Line{{Field: id, Value: l.Path.String()}} }
	return d
}()

// TestDefHandsEachPartTheBody: each part gets the body, and the
// detector the resource, the steps and the preview its id.
func TestDefHandsEachPartTheBody(t *testing.T) {
	r := &declaration.Resource{Common: declaration.Common{ID: "l", Type: declaration.KindLink},
		Body: &declaration.Link{Path: declaration.Lit("/a"), Target: declaration.Lit("/b")}}
	if got := link.Detect(r, detect.Env{}).Verdict(nil).Reason; got != "read /a of l" {
		t.Errorf("Detect: reason %q, want the body's path and the resource's id", got)
	}
	steps, err := link.Steps(r, Planned{Verdict: observation.Absent})
	if err != nil || len(steps) != 1 || steps[0].Note != "/b of l" {
		t.Errorf("Steps: %v, %v; want one note of the target and the id", steps, err)
	}
	if got := shown.Declared(r); len(got) != 1 || got[0] != (Line{Field: "l", Value: "/a"}) {
		t.Errorf("Declared: %v, want the id and the body's path", got)
	}
	if _, err := link.Steps(r, Planned{Verdict: observation.Drifted}); err == nil || err.Error() != `resource "l": target: can't` {
		t.Errorf("Steps error %v, want the part's error with the id in front", err)
	}
	if link.Declared(r) != nil || link.Shells(r) != nil {
		t.Error("Declared or Shells gave lines with no Show or Shell part")
	}
	if link.Type() != declaration.KindLink || link.RunsAs() != plan.Elevated {
		t.Errorf("Type %s, RunsAs %s", link.Type(), link.RunsAs())
	}
}

func TestDefRefusesAnotherBody(t *testing.T) {
	r := &declaration.Resource{Common: declaration.Common{ID: "x", Type: declaration.KindLink},
		Body: &declaration.Directory{Path: declaration.Lit("/a")}}
	res := link.Detect(r, detect.Env{}).Verdict(nil)
	if res.Verdict != observation.Undetermined || !strings.Contains(res.Reason, "no link fields") {
		t.Errorf("Detect of a link with a directory's body: %s %q, want a hold", res.Verdict, res.Reason)
	}
	if _, err := link.Steps(r, Planned{}); err == nil || !strings.Contains(err.Error(), `resource "x"`) {
		t.Errorf("Steps of a link with a directory's body: %v, want an error naming it", err)
	}
}
