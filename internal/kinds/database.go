package kinds

// A database is a PostgreSQL role, the database it owns and its pg_hba
// rules. Its wire form is pkg/declaration/kind_database.go; its reads are
// detect.Database.

import (
	"fmt"

	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// databaseSteps, from the drift: pg-database (the role unless it exists,
// the database unless it exists, its owner set back) when the database is
// absent, the role missing or the owner another; then pg-hba for each
// rule whose line is missing (every rule when absent). A converged part
// has no step; a rule already in the file reloads nothing. The names and
// addresses are the steps' text arguments, as declared: a reference in
// one is resolved only when the step runs, so the plan holds no value.
func databaseSteps(d *declaration.Database, at kind.Planned) ([]plan.Step, error) {
	op := func(name plan.OpName, args ...declaration.Text) plan.Step {
		return plan.Step{Type: plan.StepOp, Op: &plan.Op{Name: name, TextArgs: args, Privilege: plan.Root, Timeout: vocab.PgTimeout}}
	}
	all := at.Verdict == observation.Absent
	catalog, rules := all, map[string]bool{}
	for _, diff := range at.Drift {
		switch diff.Field {
		case vocab.FieldPgRole, vocab.FieldPgOwner:
			catalog = true
		default:
			rules[diff.Field] = true
		}
	}
	steps := []plan.Step{}
	if catalog {
		steps = append(steps, op(vocab.OpPgDatabase, d.DatabaseName, d.Username))
	}
	if d.Auth == nil {
		return steps, nil
	}
	for i, h := range d.Auth.Hosts {
		if !all && !rules[fmt.Sprintf("auth.hosts[%d]", i)] {
			continue
		}
		steps = append(steps, op(vocab.OpPgHBA, d.DatabaseName, d.Username, h, declaration.Lit(d.Auth.PgMethod())))
	}
	return steps, nil
}

// showDatabase: the database, its owner, and each rule's pg_hba.conf
// line, as written.
func showDatabase(d *declaration.Database, _ string) []kind.Line {
	out := []kind.Line{{Field: "database", Value: d.DatabaseName.String()}, {Field: "owner", Value: d.Username.String()}}
	if d.Auth != nil {
		for _, h := range d.Auth.Hosts {
			out = append(out, kind.Line{Field: "pg_hba", Value: vocab.PgHBALine(d.DatabaseName.String(), d.Username.String(), h.String(), d.Auth.PgMethod())})
		}
	}
	return out
}
