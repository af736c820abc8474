package database

import (
	"reflect"
	"testing"

	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// TestDatabaseSteps: absent gets the catalog step and every rule; drift
// gets the catalog step for a missing role or another owner, and a rule
// step only for each missing rule.
func TestDatabaseSteps(t *testing.T) {
	d := &declaration.Database{Engine: "postgresql", DatabaseName: declaration.Lit("app"), Username: declaration.Lit("web"),
		Auth: &declaration.DatabaseAuth{Hosts: []declaration.Text{declaration.Lit("127.0.0.1/32"), declaration.Lit("::1/128")}, Method: "md5"}}
	type op struct {
		name string
		args []string
	}
	catalog := op{string(OpDatabase), []string{"app", "web"}}
	v4 := op{string(OpHBA), []string{"app", "web", "127.0.0.1/32", "md5"}}
	v6 := op{string(OpHBA), []string{"app", "web", "::1/128", "md5"}}
	for name, c := range map[string]struct {
		at   kind.Planned
		want []op
	}{
		"absent": {kind.Planned{Verdict: observation.Absent}, []op{catalog, v4, v6}},
		"owner":  {kind.Planned{Verdict: observation.Drifted, Drift: []observation.Difference{{Field: FieldOwner}}}, []op{catalog}},
		"rule":   {kind.Planned{Verdict: observation.Drifted, Drift: []observation.Difference{{Field: "auth.hosts[1]"}}}, []op{v6}},
	} {
		steps, err := steps(d, c.at)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var got []op
		for _, s := range steps {
			if s.Op.Privilege != "root" || s.Op.Timeout != StepTimeout {
				t.Errorf("%s: %s runs as %s under %ds", name, s.Op.Name, s.Op.Privilege, s.Op.Timeout)
			}
			if len(s.Op.Args) != 0 {
				t.Errorf("%s: %s has literal args %q, want only text args", name, s.Op.Name, s.Op.Args)
			}
			got = append(got, op{string(s.Op.Name), s.Op.Written()})
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: steps %v, want %v", name, got, c.want)
		}
	}
}

// TestDatabaseStepsKeepReferences: a name, role or host written as a
// reference reaches the steps as the reference, resolved only when the
// step runs, so the plan holds no value.
func TestDatabaseStepsKeepReferences(t *testing.T) {
	d := &declaration.Database{Engine: "postgresql", DatabaseName: declaration.Ref("APP_DB"), Username: declaration.Ref("APP_ROLE"),
		Auth: &declaration.DatabaseAuth{Hosts: []declaration.Text{declaration.Ref("APP_NET")}}}
	steps, err := steps(d, kind.Planned{Verdict: observation.Absent})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"{env:APP_DB}", "{env:APP_ROLE}"}, {"{env:APP_DB}", "{env:APP_ROLE}", "{env:APP_NET}", "scram-sha-256"}}
	if len(steps) != len(want) {
		t.Fatalf("%d steps, want %d", len(steps), len(want))
	}
	for i, s := range steps {
		if got := s.Op.Written(); !reflect.DeepEqual(got, want[i]) {
			t.Errorf("step %d (%s): %q, want %q", i, s.Op.Name, got, want[i])
		}
		if s.Op.TextArgs[0].Refs()[0] != "APP_DB" {
			t.Errorf("step %d: database %v, want the reference", i, s.Op.TextArgs[0])
		}
	}
}
