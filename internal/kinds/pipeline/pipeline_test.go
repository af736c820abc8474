package pipeline

import (
	"reflect"
	"testing"

	"github.com/zap-go/zap/internal/detect/detecttest"
	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

func resource() *declaration.Resource {
	one := 1
	return &declaration.Resource{Common: declaration.Common{ID: "p", Type: declaration.KindPipeline},
		Body: &declaration.Pipeline{MaxConcurrency: &one, Steps: []declaration.Step{{ID: "a", Name: "First", Run: declaration.Lit("true")}, {ID: "b", Run: declaration.Lit("false")}}}}
}

// TestVerdict: a pipeline reads nothing and is always absent.
func TestVerdict(t *testing.T) {
	d := Kind.Detect(resource(), detecttest.Env(nil))
	if q := d.Queries(); len(q) != 0 {
		t.Errorf("queries %v, want none", q)
	}
	if got := d.Verdict(nil); got.Verdict != observation.Absent {
		t.Errorf("verdict %+v, want absent", got)
	}
	if !Kind.Stateless() {
		t.Error("a pipeline has state")
	}
}

// TestStepsAndPreview: a command a step, in order, as the login user; the
// preview lists max_concurrency and each step's id and name.
func TestStepsAndPreview(t *testing.T) {
	r := resource()
	steps, err := Kind.Steps(r, kind.Planned{Verdict: observation.Absent})
	if err != nil || len(steps) != 2 || steps[0].Command.Run.String() != "true" || steps[1].Command.Run.String() != "false" || steps[1].Command.Privilege != plan.Login {
		t.Fatalf("steps %+v (%v)", steps, err)
	}
	want := []kind.Line{{Field: "max_concurrency", Value: "1"}, {Field: "step", Value: "a"}, {Field: "step name", Value: "First"}, {Field: "step", Value: "b"}}
	if got := Kind.Declared(r); !reflect.DeepEqual(got, want) {
		t.Errorf("preview %+v, want %+v", got, want)
	}
}
