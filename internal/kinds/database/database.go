// Package database is the database kind: a PostgreSQL role, the database
// it owns and its pg_hba rules. Its wire form is
// pkg/declaration/kind_database.go; all else of it is here: its reads
// (Database, one psql call a pass, PgProbe), its steps and the names they
// share with the reads, its preview lines, its operations' scripts
// (scripts/pg-*.sh, scripts/lib/pg.sh) and wording, and their tests.
// internal/kinds lists Kind.
package database

import (
	"embed"
	"fmt"
	"strings"

	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/internal/ops/opcmd"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// Kind is the database kind: its steps run as root, which runs psql and
// every write as the postgres account.
var Kind = kind.Def[*declaration.Database]{
	Name: declaration.KindDatabase, Read: NewDatabase, Plan: steps, Show: preview, As: plan.Root,
	Ops: scripts, Word: words,
	Doc: doc,
}

// The operations of a database's change (scripts/pg-*.sh), each run as
// root, which runs psql and every write as the postgres account (sudo -u
// postgres, else setpriv).
const (
	OpDatabase plan.OpName = "pg-database" // DATABASE ROLE: the role made (LOGIN, no password) unless it exists; the database made owned by it, or its owner set back
	OpHBA      plan.OpName = "pg-hba"      // DATABASE ROLE ADDRESS METHOD: `host DATABASE ROLE ADDRESS METHOD` in the server's pg_hba.conf unless there, checked, reloaded
)

// The parts of a database's drift (the field names; a rule's is
// auth.hosts[i]), and the values each shows.
const (
	FieldRole  = "role"
	FieldOwner = "owner"

	Present = "present"
	Missing = "missing"
)

// StepTimeout is the limit, in seconds, on a database operation: psql's
// own statements, and for a pg_hba rule the 30 s wait for the reload.
const StepTimeout = 120

// HBALine is the pg_hba.conf line a rule is: a plain TCP host record, no
// options.
func HBALine(database, role, address, method string) string {
	return "host " + database + " " + role + " " + address + " " + method
}

// scripts holds the operations' scripts and their shared part.
//
//go:embed scripts/*.sh scripts/lib/*.sh
var scripts embed.FS

// words words a database's operation, its arguments as written (a
// reference as {env:NAME}), which runs psql and its writes as the postgres
// account, whatever the step's privilege:
//
//	pg-database app app                          pg database app, owned by the role app (as postgres)
//	pg-hba app app 127.0.0.1/32 scram-sha-256    pg_hba rule: host app app 127.0.0.1/32 scram-sha-256 (as postgres)
func words(op *plan.Op) (opcmd.Words, bool) {
	args := op.Written()
	switch {
	case op.Name == OpDatabase && len(args) == 2:
		return opcmd.Words{Text: "pg database " + args[0] + ", owned by the role " + args[1] + " (as postgres)"}, true
	case op.Name == OpHBA && len(args) == 4:
		return opcmd.Words{Text: "pg_hba rule: host " + strings.Join(args, " ") + " (as postgres)"}, true
	}
	return opcmd.Words{}, false
}

// steps, from the drift: pg-database (the role unless it exists,
// the database unless it exists, its owner set back) when the database is
// absent, the role missing or the owner another; then pg-hba for each
// rule whose line is missing (every rule when absent). A converged part
// has no step; a rule already in the file reloads nothing. The names and
// addresses are the steps' text arguments, as declared: a reference in
// one is resolved only when the step runs, so the plan holds no value.
func steps(d *declaration.Database, at kind.Planned) ([]plan.Step, error) {
	op := func(name plan.OpName, args ...declaration.Text) plan.Step {
		return plan.Step{Type: plan.StepOp, Op: &plan.Op{Name: name, TextArgs: args, Privilege: plan.Root, Timeout: StepTimeout}}
	}
	all := at.Verdict == observation.Absent
	catalog, rules := all, map[string]bool{}
	for _, diff := range at.Drift {
		switch diff.Field {
		case FieldRole, FieldOwner:
			catalog = true
		default:
			rules[diff.Field] = true
		}
	}
	steps := []plan.Step{}
	if catalog {
		steps = append(steps, op(OpDatabase, d.DatabaseName, d.Username))
	}
	if d.Auth == nil {
		return steps, nil
	}
	for i, h := range d.Auth.Hosts {
		if !all && !rules[fmt.Sprintf("auth.hosts[%d]", i)] {
			continue
		}
		steps = append(steps, op(OpHBA, d.DatabaseName, d.Username, h, declaration.Lit(d.Auth.PgMethod())))
	}
	return steps, nil
}

// preview: the database, its owner, and each rule's pg_hba.conf
// line, as written.
func preview(d *declaration.Database, _ string) []kind.Line {
	out := []kind.Line{{Field: "database", Value: d.DatabaseName.String()}, {Field: "owner", Value: d.Username.String()}}
	if d.Auth != nil {
		for _, h := range d.Auth.Hosts {
			out = append(out, kind.Line{Field: "pg_hba", Value: HBALine(d.DatabaseName.String(), d.Username.String(), h.String(), d.Auth.PgMethod())})
		}
	}
	return out
}
