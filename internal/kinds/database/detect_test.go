package database

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/detect/detecttest"
	"github.com/zap-go/zap/internal/mask"
	"github.com/zap-go/zap/internal/scripttest"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

func pgAnswer(exit int, out string) []detect.Answer {
	return []detect.Answer{{Status: detect.StatusOK, Exit: exit, Output: out}}
}

func pgDatabase(name, role string, hosts ...string) detect.Detector {
	d := &declaration.Database{Engine: "postgresql", DatabaseName: declaration.Lit(name), Username: declaration.Lit(role)}
	if len(hosts) > 0 {
		d.Auth = &declaration.DatabaseAuth{}
		for _, h := range hosts {
			d.Auth.Hosts = append(d.Auth.Hosts, declaration.Lit(h))
		}
	}
	return NewDatabase(d, detect.Env{})
}

// TestDatabaseVerdictRecorded reads PgProbe's answers recorded from
// Debian 12's PostgreSQL 15 (testdata/postgres/README; none from Alpine):
// the fresh cluster reads absent, the database made with its rule
// converges, another owner and a missing rule drift, and a stopped server
// holds with psql's message.
func TestDatabaseVerdictRecorded(t *testing.T) {
	fresh := detecttest.Recorded(t, "postgres", "debian15-fresh.out")
	app := detecttest.Recorded(t, "postgres", "debian15-app.out")
	stopped := detecttest.Recorded(t, "postgres", "debian15-stopped.out")
	owned := strings.Replace(app, `"zt_db1" : "zt_role1"`, `"zt_db1" : "postgres"`, 1)
	for _, c := range []struct {
		name    string
		d       detect.Detector
		exit    int
		out     string
		verdict observation.Verdict
		drift   []observation.Difference
		reason  string
	}{
		{"fresh", pgDatabase("zt_db1", "zt_role1", "127.0.0.1/32"), 0, fresh, observation.Absent, nil, ""},
		{"made", pgDatabase("zt_db1", "zt_role1", "127.0.0.1/32"), 0, app, observation.Converged, nil, ""},
		{"no auth", pgDatabase("zt_db1", "zt_role1"), 0, app, observation.Converged, nil, ""},
		{"another owner", pgDatabase("zt_db1", "zt_role1", "127.0.0.1/32"), 0, owned, observation.Drifted,
			[]observation.Difference{{Field: FieldOwner, Observed: "postgres", Desired: "zt_role1"}}, ""},
		{"rule missing", pgDatabase("zt_db1", "zt_role1", "127.0.0.1/32", "::1/128"), 0, app, observation.Drifted,
			[]observation.Difference{{Field: "auth.hosts[1]", Observed: Missing, Desired: "host zt_db1 zt_role1 ::1/128 scram-sha-256"}}, ""},
		{"role missing", pgDatabase("postgres", "app"), 0, fresh, observation.Drifted,
			[]observation.Difference{{Field: FieldRole, Observed: Missing, Desired: Present},
				{Field: FieldOwner, Observed: "postgres", Desired: "app"}}, ""},
		{"stopped", pgDatabase("zt_db1", "zt_role1"), 4, stopped, observation.Undetermined, nil,
			`the catalog query as postgres failed (is the server running?): psql: error: connection to server on socket "/var/run/postgresql/.s.PGSQL.5432" failed: No such file or directory`},
		{"no postgresql", pgDatabase("zt_db1", "zt_role1"), 3, "", observation.Absent, nil, ""},
		{"timed out", pgDatabase("zt_db1", "zt_role1"), 5, "", observation.Undetermined, nil, "the catalog query as postgres ran past 50s"},
		{"hba unreadable", pgDatabase("zt_db1", "zt_role1"), 6, "/etc/pg_hba.conf\n{}\n" + pgHBAMark + "\nhead: /etc/pg_hba.conf: Permission denied\n", observation.Undetermined, nil,
			"the postgres account can't read the pg_hba.conf the server names (/etc/pg_hba.conf): head: /etc/pg_hba.conf: Permission denied"},
		{"not one row", pgDatabase("zt_db1", "zt_role1"), 0, "/etc/pg_hba.conf\n{}\n{}\n" + pgHBAMark + "\n", observation.Undetermined, nil,
			"PostgreSQL's catalog query didn't answer with its one row"},
		{"a field of its own", pgDatabase("zt_db1", "zt_role1"), 0, "/etc/pg_hba.conf\n{\"databases\":{},\"x\":1}\n" + pgHBAMark + "\n", observation.Undetermined, nil,
			"PostgreSQL's catalog query didn't answer with its one row"},
		{"too long", pgDatabase("zt_db1", "zt_role1"), 0, "/p\n{\"roles\":[],\"databases\":{}}\n" + pgHBAMark + "\n" + strings.Repeat("#\n", PgHBALimit), observation.Undetermined, nil,
			"/p is larger than 256 KiB, which Zap reads of it"},
	} {
		got := c.d.Verdict(pgAnswer(c.exit, c.out))
		if got.Verdict != c.verdict || !reflect.DeepEqual(got.Drift, c.drift) || got.Reason != c.reason {
			t.Errorf("%s: %s %v %q, want %s %v %q", c.name, got.Verdict, got.Drift, got.Reason, c.verdict, c.drift, c.reason)
		}
	}
}

// TestDatabaseOneProbe: every database declares the same one probe, as
// root, so a pass of any number of them runs psql once.
func TestDatabaseOneProbe(t *testing.T) {
	a, b := pgDatabase("a", "ra").Queries(), pgDatabase("b", "rb", "10.0.0.0/8").Queries()
	if len(a) != 1 || !reflect.DeepEqual(a, b) || a[0].Lane != observation.LaneRoot || a[0].Command.Timeout != PgProbeTimeout {
		t.Fatalf("queries %+v and %+v, want one and the same root probe", a, b)
	}
	for _, w := range []string{"timeout 50 psql -X ", "sudo -n -u postgres", "head -c 262145 "} {
		if !strings.Contains(PgProbe, w) {
			t.Errorf("PgProbe lacks %q", w)
		}
	}
}

// TestDatabaseReferencesResolve: a name, role or host that is a
// reference is compared as it resolves; a value pg_hba.conf would misread
// holds, naming the field, and shows the value only when no secret is in
// it; drift shows a secret's value as written.
func TestDatabaseReferencesResolve(t *testing.T) {
	vals := map[string]string{"DB": "app", "ROLE": "web", "NET": "127.0.0.1/32", "TOKEN": "s3cr3t-role", "BAD": "my app", "BADTOKEN": "all", "HOST": "db.example.com", "NUL": "a\x00b"}
	env := detect.Env{Value: func(n string) string { return vals[n] }, Secret: func(n string) bool { return strings.Contains(n, "TOKEN") }}
	d := &declaration.Database{DatabaseName: declaration.Ref("DB"), Username: declaration.Ref("ROLE"),
		Auth: &declaration.DatabaseAuth{Hosts: []declaration.Text{declaration.Ref("NET")}}}
	got, ok := NewDatabase(d, env).(*Database)
	if !ok || got.Name != "app" || got.Role != "web" || !reflect.DeepEqual(got.Rules, []string{"host app web 127.0.0.1/32 scram-sha-256"}) {
		t.Fatalf("detector %#v, want the resolved names and rule", got)
	}
	res := got.compare(PgCatalog{Roles: []string{"web"}, Databases: map[string]string{"app": "web"}, HBA: "host app web 127.0.0.1/32 scram-sha-256\n"})
	if res.Verdict != observation.Converged {
		t.Errorf("resolved and present: %s %v, want converged", res.Verdict, res.Drift)
	}

	secret := &declaration.Database{DatabaseName: declaration.Ref("DB"), Username: declaration.Ref("TOKEN"),
		Auth: &declaration.DatabaseAuth{Hosts: []declaration.Text{declaration.Ref("NET")}}}
	res = NewDatabase(secret, env).(*Database).compare(PgCatalog{Roles: []string{"postgres"}, Databases: map[string]string{"app": "postgres"}})
	if res.Verdict != observation.Drifted || len(res.Drift) != 3 || res.Drift[1].Desired != "{env:TOKEN}" || res.Drift[2].Desired != "host app {env:TOKEN} 127.0.0.1/32 scram-sha-256" {
		t.Errorf("secret role drifted: %s %+v, want the role written as declared", res.Verdict, res.Drift)
	}

	for field, c := range map[string]struct {
		d    *declaration.Database
		show string
	}{
		"database_name": {&declaration.Database{DatabaseName: declaration.Ref("BAD"), Username: declaration.Lit("r")}, `"my app" holds whitespace`},
		"username":      {&declaration.Database{DatabaseName: declaration.Lit("d"), Username: declaration.Ref("BADTOKEN")}, "{env:BADTOKEN} resolves to a value pg_hba.conf would read as something else"},
		"auth.hosts[0]": {&declaration.Database{DatabaseName: declaration.Lit("d"), Username: declaration.Lit("r"), Auth: &declaration.DatabaseAuth{Hosts: []declaration.Text{declaration.Ref("HOST")}}}, `"db.example.com" is not an IP address`},
	} {
		got := NewDatabase(c.d, env).Verdict(nil)
		if got.Verdict != observation.Undetermined || !strings.HasPrefix(got.Reason, field+": ") || !strings.Contains(got.Reason, c.show) {
			t.Errorf("%s: %s %q, want a hold naming it and saying %q", field, got.Verdict, got.Reason, c.show)
		}
		if field == "username" && strings.Contains(got.Reason, `"all"`) {
			t.Errorf("the secret's value is in the reason: %q", got.Reason)
		}
	}
	nul := NewDatabase(&declaration.Database{DatabaseName: declaration.Ref("NUL"), Username: declaration.Lit("r")}, env).Verdict(nil)
	if nul.Verdict != observation.Undetermined || !strings.Contains(nul.Reason, "database_name: the reference NUL resolves to a value holding a NUL") {
		t.Errorf("a NUL: %s %q, want a hold", nul.Verdict, nul.Reason)
	}
}

// TestPgHBAHas: a rule is a line of its five fields, any blanks between
// them and a comment after; anything more or less is another line.
func TestPgHBAHas(t *testing.T) {
	rule := "host app app 127.0.0.1/32 scram-sha-256"
	for text, want := range map[string]bool{
		"host app app 127.0.0.1/32 scram-sha-256\n":                 true,
		"  host\tapp   app 127.0.0.1/32 scram-sha-256 # mine\n":     true,
		"# host app app 127.0.0.1/32 scram-sha-256\n":               false,
		"host app app 127.0.0.1/32 scram-sha-256 clientcert=1\n":    false,
		"hostssl app app 127.0.0.1/32 scram-sha-256\n":              false,
		"host app app 127.0.0.1/32 md5\nhost all all 0.0.0.0/0 x\n": false,
	} {
		if got := PgHBAHas(text, rule); got != want {
			t.Errorf("PgHBAHas(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestDatabasesOnePsqlPerPass: a pass over ten databases on one server
// asks one read, PgProbe once, and each database reads its own verdict
// from the one answer (the budget: one psql call per pass).
func TestDatabasesOnePsqlPerPass(t *testing.T) {
	app := detecttest.Recorded(t, "postgres", "debian15-app.out")
	var ds []detect.Detector
	for i := range 10 {
		ds = append(ds, pgDatabase(fmt.Sprintf("zt_db%d", i), "zt_role1", "127.0.0.1/32"))
	}
	asked := 0
	batches, results := detect.Pass(context.Background(), hostFunc(func(_ observation.Lane, qs []detect.Query) []detect.Answer {
		asked += len(qs)
		return pgAnswer(0, app)
	}), ds)
	if asked != 1 || len(batches) != 1 || batches[0].Queries != 1 {
		t.Fatalf("%d reads in %v, want PgProbe once", asked, batches)
	}
	for i, r := range results {
		if want := map[bool]observation.Verdict{true: observation.Converged, false: observation.Absent}[i == 1]; r.Verdict != want {
			t.Errorf("zt_db%d: %s, want %s", i, r.Verdict, want)
		}
	}
}

// TestDatabaseHoldQuotesNoPartOfASecretWhereverTheCutFalls holds a database
// whose role is a secret on a psql (or head) message that names it and then
// says enough that the message's cut at pgMessageLimit bytes falls at every
// offset of the secret, from just before its first byte to just after its
// last: the reason holds no four bytes of the secret in a row, and when the
// cut falls after it, its placeholder whole.
func TestDatabaseHoldQuotesNoPartOfASecretWhereverTheCutFalls(t *testing.T) {
	vals := map[string]string{"ROLE": scripttest.CutSecret}
	env := detect.Env{Value: func(n string) string { return vals[n] }, Secret: func(n string) bool { return n == "ROLE" },
		Mask: mask.New(map[string]string{"ROLE": scripttest.CutSecret})}
	d := NewDatabase(&declaration.Database{DatabaseName: declaration.Lit("app"), Username: declaration.Ref("ROLE")}, env)
	secret := scripttest.CutSecret
	for _, exit := range []int{pgFailed, pgUnread} {
		for off := -1; off <= len(secret)+1; off++ {
			msg := `psql: error: FATAL:  role "`
			msg = strings.Repeat(".", pgMessageLimit-len(msg)-off) + msg + secret + `" does not exist` + strings.Repeat(".", 300)
			out := msg + "\n"
			if exit == pgUnread {
				out = "/etc/postgresql/15/main/pg_hba.conf\n" + pgHBAMark + "\n" + msg + "\n"
			}
			got := d.Verdict(pgAnswer(exit, out))
			if got.Verdict != observation.Undetermined {
				t.Fatalf("exit %d, cut at %d: %s, want a hold", exit, off, got.Verdict)
			}
			if piece := scripttest.SecretPiece(got.Reason, secret, 4); piece != "" {
				t.Errorf("exit %d, cut at %d: the reason %q holds %q of the secret", exit, off, got.Reason, piece)
			}
			if off >= len(secret) && !strings.Contains(got.Reason, "[MASKED:ROLE]") {
				t.Errorf("exit %d, cut at %d: the reason %q, want the placeholder whole", exit, off, got.Reason)
			}
		}
	}
}

// hostFunc answers a pass's queries by a function.
type hostFunc func(observation.Lane, []detect.Query) []detect.Answer

func (f hostFunc) Answer(_ context.Context, lane observation.Lane, qs []detect.Query) ([]detect.Answer, error) {
	return f(lane, qs), nil
}
