package vocab

import "github.com/zap-go/zap/pkg/plan"

// The operations of a database's change (internal/ops/scripts/pg-*.sh),
// each run as root, which runs psql and every write as the postgres
// account (sudo -u postgres, else setpriv).
const (
	OpPgDatabase plan.OpName = "pg-database" // DATABASE ROLE: the role made (LOGIN, no password) unless it exists; the database made owned by it, or its owner set back
	OpPgHBA      plan.OpName = "pg-hba"      // DATABASE ROLE ADDRESS METHOD: `host DATABASE ROLE ADDRESS METHOD` in the server's pg_hba.conf unless there, checked, reloaded
)

// The parts of a database's drift (the field names; a rule's is
// auth.hosts[i]), and the values each shows.
const (
	FieldPgRole  = "role"
	FieldPgOwner = "owner"

	PgPresent = "present"
	PgMissing = "missing"
)

// PgTimeout is the limit, in seconds, on a database operation: psql's own
// statements, and for a pg_hba rule the 30 s wait for the reload.
const PgTimeout = 120

// PgHBALine is the pg_hba.conf line a rule is: a plain TCP host record,
// no options.
func PgHBALine(database, role, address, method string) string {
	return "host " + database + " " + role + " " + address + " " + method
}
