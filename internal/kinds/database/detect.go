package database

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/escape"
	"github.com/zap-go/zap/internal/mask"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// PgTimeout is the limit, in seconds, psql's catalog query runs under
// (detection.md), and PgProbeTimeout the probe's as a whole: the query and
// the read of pg_hba.conf after it.
const (
	PgTimeout      = 50
	PgProbeTimeout = PgTimeout + 10
)

// PgHBALimit is how much of pg_hba.conf the probe reads; a longer file
// holds every database's rules.
const PgHBALimit = 256 << 10

// The exits of PgProbe other than 0 (read) and what the probe's shell
// gives for a failed command of its own.
const (
	pgNone      = 3 // no psql, or no postgres account: no PostgreSQL
	pgFailed    = 4 // the query failed; psql's messages follow
	pgTimedOut  = 5 // the query ran past PgTimeout
	pgUnread    = 6 // pg_hba.conf couldn't be read as postgres
	pgNoAccount = 7 // neither sudo nor setpriv to act as postgres
)

// pgHBAMark is the line between the query's rows and pg_hba.conf in the
// probe's output.
const pgHBAMark = "--zap-pg_hba.conf--"

// PgCatalogQuery is the catalog query, one row of JSON: every role, and
// each database with its owner. With SHOW hba_file before it, it is
// psql's whole output.
const PgCatalogQuery = `SELECT json_build_object(` +
	`'roles', (SELECT coalesce(json_agg(rolname ORDER BY rolname), '[]') FROM pg_roles), ` +
	`'databases', (SELECT coalesce(json_object_agg(datname, pg_get_userbyid(datdba)), '{}') FROM pg_database))`

// PgProbe reads the server as the postgres account, from root: the
// hba_file setting and the catalog row in one psql -X call under a timeout
// of its own (run as postgres, so it stops psql itself), then that
// pg_hba.conf, at most PgHBALimit+1 bytes of it, read as postgres too. It
// is the same text for every database, so a pass runs it once however
// many databases it reads (detect.Pass). With no psql or no postgres
// account it exits 3 before anything runs.
var PgProbe = `PATH=${PATH:-/usr/bin:/bin}:/usr/sbin:/sbin
command -v psql >/dev/null 2>&1 || exit 3
id -u postgres >/dev/null 2>&1 || exit 3
if command -v sudo >/dev/null 2>&1; then
	as_pg() { sudo -n -u postgres -- "$@"; }
elif command -v setpriv >/dev/null 2>&1; then
	as_pg() { setpriv --reuid=postgres --regid="$(id -g postgres)" --init-groups -- "$@"; }
else
	echo "neither sudo nor setpriv is here to act as postgres"
	exit 7
fi
cd / || exit 4
out=$(as_pg timeout ` + strconv.Itoa(PgTimeout) + ` psql -X -q -A -t -v ON_ERROR_STOP=1 -d postgres -c 'SHOW hba_file' -c "` + PgCatalogQuery + `" 2>&1)
s=$?
[ "$s" -eq 124 ] && exit 5
if [ "$s" -ne 0 ]; then
	printf '%s\n' "$out"
	exit 4
fi
printf '%s\n` + pgHBAMark + `\n' "$out"
f=${out%%
*}
as_pg head -c ` + strconv.Itoa(PgHBALimit+1) + ` -- "$f" 2>&1 || exit 6`

// Database detects a PostgreSQL database, its owning role and its pg_hba
// rules by PgProbe's one read, as root (which acts as postgres). No psql
// or no postgres account reads absent; a query that fails, output that
// isn't the query's row, and a pg_hba.conf postgres can't read hold
// (detection.md). A database that isn't there reads absent; otherwise a
// missing role, another owner and each rule's missing line are drift.
type Database struct {
	Name, Role string
	// Rules are the pg_hba.conf lines of auth.hosts, in order.
	Rules []string
	// ShownRole and ShownRules are Role and Rules as drift shows them:
	// resolved, except a value holding a secret, written as declared.
	ShownRole  string
	ShownRules []string
	// mask masks psql's message before it is cut (Env.Mask).
	mask *mask.Masker
}

// NewDatabase makes a database's detector. A name or host that holds a
// reference is compared as it resolves; a value pg_hba.conf would misread
// (or holding a NUL or a reference marker) holds the resource, naming the
// field, and the value only when no secret is in it.
func NewDatabase(d *declaration.Database, env detect.Env) detect.Detector {
	name, reason := pgValue("database_name", d.DatabaseName, env, func(s string) error { return declaration.CheckHBAName(s, "database") })
	if reason != "" {
		return detect.Held(reason)
	}
	role, reason := pgValue("username", d.Username, env, func(s string) error { return declaration.CheckHBAName(s, "role") })
	if reason != "" {
		return detect.Held(reason)
	}
	db := &Database{Name: name, Role: role, ShownRole: detect.Shown(d.Username, role, env), mask: env.Mask}
	if d.Auth != nil {
		for i, h := range d.Auth.Hosts {
			host, reason := pgValue(fmt.Sprintf("auth.hosts[%d]", i), h, env, declaration.CheckHBAHost)
			if reason != "" {
				return detect.Held(reason)
			}
			method := d.Auth.PgMethod()
			db.Rules = append(db.Rules, HBALine(name, role, host, method))
			db.ShownRules = append(db.ShownRules, HBALine(detect.Shown(d.DatabaseName, name, env), db.ShownRole, detect.Shown(h, host, env), method))
		}
	}
	return db
}

// pgValue resolves a database's name or host and checks the value as
// pg_hba.conf would read it (check), or says why it holds. A plain value
// passed the same check at evaluation.
func pgValue(field string, t declaration.Text, env detect.Env, check func(string) error) (string, string) {
	s, reason := detect.ResolveValue(field, t, env, "\x00")
	if reason != "" || !t.HasRefs() {
		return s, reason
	}
	if err := check(s); err != nil {
		if detect.Shown(t, s, env) != s {
			return "", fmt.Sprintf("%s: %s resolves to a value pg_hba.conf would read as something else, which Zap won't use here", field, t.String())
		}
		return "", fmt.Sprintf("%s: %s resolves to a value Zap won't use here: %v", field, t.String(), err)
	}
	return s, ""
}

// Queries: PgProbe, as root.
func (d *Database) Queries() []detect.Query {
	return []detect.Query{{Op: detect.OpProbe, Lane: observation.LaneRoot, Command: &detect.Command{Text: PgProbe, Timeout: PgProbeTimeout}}}
}

// Verdict: see Database.
func (d *Database) Verdict(a []detect.Answer) detect.Result {
	if len(a) != 1 {
		return detect.Holding(fmt.Sprintf("%d answers for the database's 1 read", len(a)))
	}
	r := a[0]
	if r.Status != detect.StatusOK {
		return detect.Holding(detect.Problem(r, "PostgreSQL's catalog", PgProbeTimeout))
	}
	switch r.Exit {
	case 0:
	case pgNone:
		return detect.Absent()
	case pgFailed:
		return detect.Holding("the catalog query as postgres failed (is the server running?): " + pgMessage(r.Output, d.mask))
	case pgTimedOut:
		return detect.Holding(fmt.Sprintf("the catalog query as postgres ran past %ds", PgTimeout))
	case pgNoAccount:
		return detect.Holding("neither sudo nor setpriv is on the target to run psql as postgres")
	case pgUnread:
		hba, _, _ := strings.Cut(r.Output, "\n")
		_, msg, _ := strings.Cut(r.Output, pgHBAMark+"\n")
		return detect.Holding("the postgres account can't read the pg_hba.conf the server names (" + escape.Line(hba) + "): " + pgMessage(msg, d.mask))
	default:
		return detect.Holding(fmt.Sprintf("reading PostgreSQL's catalog exited %d", r.Exit))
	}
	cat, reason := ParsePgProbe(r.Output)
	if reason != "" {
		return detect.Holding(reason)
	}
	return d.compare(cat)
}

// compare judges the declared database against what the probe read.
func (d *Database) compare(cat PgCatalog) detect.Result {
	owner, ok := cat.Databases[d.Name]
	if !ok {
		return detect.Absent()
	}
	var diff []observation.Difference
	hasRole := false
	for _, r := range cat.Roles {
		hasRole = hasRole || r == d.Role
	}
	if !hasRole {
		diff = append(diff, observation.Difference{Field: FieldRole, Observed: Missing, Desired: Present})
	}
	if owner != d.Role {
		diff = append(diff, observation.Difference{Field: FieldOwner, Observed: owner, Desired: cmp.Or(d.ShownRole, d.Role)})
	}
	for i, rule := range d.Rules {
		if !PgHBAHas(cat.HBA, rule) {
			shown := rule
			if i < len(d.ShownRules) {
				shown = d.ShownRules[i]
			}
			diff = append(diff, observation.Difference{Field: fmt.Sprintf("auth.hosts[%d]", i), Observed: Missing, Desired: shown})
		}
	}
	if diff == nil {
		return detect.Converged()
	}
	return detect.Drifted(diff)
}

// PgCatalog is what PgProbe read: the pg_hba.conf the server names and its
// text, every role, and each database's owner.
type PgCatalog struct {
	HBAFile   string            `json:"-"`
	HBA       string            `json:"-"`
	Roles     []string          `json:"roles"`
	Databases map[string]string `json:"databases"`
}

// ParsePgProbe parses PgProbe's output when it exited 0: the hba_file
// line, the catalog row, the mark, and pg_hba.conf. A reason says why it
// doesn't parse.
func ParsePgProbe(out string) (PgCatalog, string) {
	var c PgCatalog
	lines := strings.SplitN(out, "\n", 4)
	if len(lines) < 3 || lines[2] != pgHBAMark || !strings.HasPrefix(lines[0], "/") {
		return c, "PostgreSQL's catalog query didn't answer with its one row"
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(lines[1])))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil || dec.More() || c.Databases == nil {
		return c, "PostgreSQL's catalog query didn't answer with its one row"
	}
	c.HBAFile = lines[0]
	if len(lines) == 4 {
		c.HBA = lines[3]
	}
	if len(c.HBA) > PgHBALimit {
		return c, fmt.Sprintf("%s is larger than %d KiB, which Zap reads of it", escape.Line(c.HBAFile), PgHBALimit>>10)
	}
	return c, ""
}

// PgHBAHas reports whether the pg_hba.conf text has rule (fields separated
// by single spaces) as a line of its own: the same fields, separated by
// any spaces and tabs, with nothing after them but a comment. It is the
// match the pg-hba script makes before it inserts. The rule splits at the
// blanks a line does, and only there: a name may hold another space
// character (U+00A0, U+0085), which PostgreSQL and the script read as part
// of the name.
func PgHBAHas(text, rule string) bool {
	blank := func(r rune) bool { return r == ' ' || r == '\t' || r == '\r' }
	want := strings.FieldsFunc(rule, blank)
	for line := range strings.SplitSeq(text, "\n") {
		line, _, _ = strings.Cut(line, "#")
		got := strings.FieldsFunc(line, blank)
		if slices.Equal(got, want) {
			return true
		}
	}
	return false
}

// pgMessageLimit is how many bytes of psql's first line a reason keeps.
const pgMessageLimit = 200

// pgMessage is the first line of what psql or head printed, for a reason:
// masked with m first, then cut at pgMessageLimit bytes, so the cut never
// falls inside a secret and keeps no part of one.
func pgMessage(out string, m *mask.Masker) string {
	line, _, _ := strings.Cut(strings.TrimSpace(out), "\n")
	if line == "" {
		return "no message"
	}
	line = m.String(line)
	if len(line) > pgMessageLimit {
		line = line[:pgMessageLimit] + "…"
	}
	return escape.Line(line)
}
