package kinds

import (
	"reflect"
	"testing"

	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/internal/vocab"
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
	catalog := op{string(vocab.OpPgDatabase), []string{"app", "web"}}
	v4 := op{string(vocab.OpPgHBA), []string{"app", "web", "127.0.0.1/32", "md5"}}
	v6 := op{string(vocab.OpPgHBA), []string{"app", "web", "::1/128", "md5"}}
	for name, c := range map[string]struct {
		at   kind.Planned
		want []op
	}{
		"absent": {kind.Planned{Verdict: observation.Absent}, []op{catalog, v4, v6}},
		"owner":  {kind.Planned{Verdict: observation.Drifted, Drift: []observation.Difference{{Field: vocab.FieldPgOwner}}}, []op{catalog}},
		"rule":   {kind.Planned{Verdict: observation.Drifted, Drift: []observation.Difference{{Field: "auth.hosts[1]"}}}, []op{v6}},
	} {
		steps, err := databaseSteps(d, c.at)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var got []op
		for _, s := range steps {
			if s.Op.Privilege != "root" || s.Op.Timeout != vocab.PgTimeout {
				t.Errorf("%s: %s runs as %s under %ds", name, s.Op.Name, s.Op.Privilege, s.Op.Timeout)
			}
			got = append(got, op{string(s.Op.Name), s.Op.Args})
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: steps %v, want %v", name, got, c.want)
		}
	}
}
