package ops_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/kinds/database"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// pgTools are the applets a BusyBox shell has first on PATH for the pg-*
// scripts (what runs as postgres runs under sudo's own PATH).
var pgTools = []string{"awk", "cat", "chgrp", "chmod", "cmp", "head", "id", "ln", "mktemp", "mv", "rm", "sleep", "stat", "timeout", "tr"}

// pgMachine is the pg_hba.conf of the machine's default PostgreSQL
// cluster, which the pg-* scripts act on, for a test run as root; it
// starts that cluster when it is down (pgStartDefault), and skips, saying
// why, where there is none it can start. The test holds an flock
// (/run/zap-pg-test.lock) while it runs, since every test of the machine's
// cluster rewrites the one pg_hba.conf, and puts the file's bytes back at
// its end (written in place as postgres, its mode as it was, then a
// reload).
func pgMachine(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the pg-* scripts run as root and act as postgres: run the tests as root")
	}
	for _, tool := range []string{"psql", "sudo"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s here: .ci/run installs postgresql and sudo", tool)
		}
	}
	lock, err := os.OpenFile("/run/zap-pg-test.lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lock.Close() })
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	hba, err := pgQuery("SHOW hba_file")
	if err != nil && pgStartDefault(t) {
		hba, err = pgQuery("SHOW hba_file")
	}
	if err != nil {
		t.Skipf("the machine's default PostgreSQL cluster doesn't answer psql as postgres, and it couldn't be started: %v", err)
	}
	old, err := os.ReadFile(hba)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(hba)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.Chmod(hba, st.Mode().Perm()); err != nil {
			t.Error(err)
		}
		put := exec.Command("sudo", "-n", "-u", "postgres", "sh", "-c", `cat > "$1"`, "sh", hba)
		put.Stdin = strings.NewReader(string(old))
		if out, err := put.CombinedOutput(); err != nil {
			t.Errorf("putting %s back: %v: %s", hba, err, out)
		}
		if _, err := pgQuery("SELECT pg_reload_conf()"); err != nil {
			t.Error(err)
		}
	})
	return hba
}

// pgStartDefault starts the machine's default cluster (the one on port
// 5432, which psql as postgres reaches) when it is down, and stops it
// again at the test's end, before the flock is let go: only the test
// that started it stops it, and every test using that cluster holds the
// flock. It reports whether it started one; where it can't, it logs why.
func pgStartDefault(t *testing.T) bool {
	t.Helper()
	out, err := exec.Command("pg_lsclusters", "-h").Output()
	if err != nil {
		t.Logf("pg_lsclusters: %v", err)
		return false
	}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) < 4 || f[2] != "5432" || f[3] != "down" {
			continue
		}
		if out, err := exec.Command("pg_ctlcluster", f[0], f[1], "start").CombinedOutput(); err != nil {
			t.Logf("pg_ctlcluster %s %s start: %v: %s", f[0], f[1], err, out)
			return false
		}
		t.Cleanup(func() {
			if out, err := exec.Command("pg_ctlcluster", f[0], f[1], "stop").CombinedOutput(); err != nil {
				t.Errorf("stopping the cluster %s %s this test started: %v: %s", f[0], f[1], err, out)
			}
		})
		return true
	}
	t.Log("no cluster on port 5432 is down to start (pg_lsclusters)")
	return false
}

// pgQuery runs sql through psql -X as postgres and returns its rows.
func pgQuery(sql string) (string, error) {
	cmd := exec.Command("sudo", "-n", "-u", "postgres", "psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", "postgres", "-c", sql)
	cmd.Dir = "/"
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("psql -c %q: %v: %s", sql, err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

func pgMust(t *testing.T, sql string) string {
	t.Helper()
	out, err := pgQuery(sql)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func fileState(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	s := st.Sys().(*syscall.Stat_t)
	return fmt.Sprintf("%s %o %d:%d %d", b, st.Mode().Perm(), s.Uid, s.Gid, s.Ino)
}

// leftovers are the names the pg-hba script stages beside the file.
func leftovers(t *testing.T, hba string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(filepath.Dir(hba), ".*zap*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestPgScriptsOnThisMachine runs pg-database and pg-hba under dash, bash
// and BusyBox against the machine's own PostgreSQL (Debian's postgresql,
// which .ci/run installs): the role and database made once, the owner set
// back (database.PgProbe, run here too, reading it drifted before and
// converged after), the rule above the first host line with the file's mode and group
// kept and a second run changing nothing; a file postgres doesn't own
// refused (93) and a file the server can't parse with the line in it put
// back (1), each as it was, with nothing left beside it.
func TestPgScriptsOnThisMachine(t *testing.T) {
	hba := pgMachine(t)
	for i, sh := range opShells(t, "pg", os.Getenv("PATH"), pgTools) {
		// The role's name holds a single quote and a backslash, which
		// pg_hba.conf reads as they are and psql's \set must carry.
		db, role := fmt.Sprintf("zt_db_%d_%d", os.Getpid(), i), fmt.Sprintf(`zt_role_%d_%d'q\b`, os.Getpid(), i)
		t.Cleanup(func() {
			pgQuery("DROP DATABASE IF EXISTS " + db)
			pgQuery(`DROP ROLE IF EXISTS "` + role + `"`)
		})
		for range 2 {
			if code, stderr := userRun(t, sh, "pg-database", db, role); code != 0 {
				t.Fatalf("%s: pg-database: exit %d: %s", sh.name, code, stderr)
			}
		}
		pgMust(t, "ALTER DATABASE "+db+" OWNER TO postgres")
		if got := pgDetect(t, sh, db, role); got.Verdict != observation.Drifted || len(got.Drift) != 1 || got.Drift[0].Observed != "postgres" {
			t.Errorf("%s: detected %s %q %v with another owner, want the owner drifted", sh.name, got.Verdict, got.Reason, got.Drift)
		}
		if code, stderr := userRun(t, sh, "pg-database", db, role); code != 0 {
			t.Fatalf("%s: pg-database: exit %d: %s", sh.name, code, stderr)
		}
		if got := pgMust(t, "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = '"+db+"'"); got != role {
			t.Errorf("%s: owner %q, want %q", sh.name, got, role)
		}

		if err := os.Chmod(hba, 0o604); err != nil {
			t.Fatal(err)
		}
		if code, stderr := userRun(t, sh, "pg-hba", db, role, "127.0.0.1/32", "scram-sha-256"); code != 0 {
			t.Fatalf("%s: pg-hba: exit %d: %s", sh.name, code, stderr)
		}
		text, err := os.ReadFile(hba)
		if err != nil {
			t.Fatal(err)
		}
		line := "host " + db + " " + role + " 127.0.0.1/32 scram-sha-256\n"
		at := strings.Index(string(text), line)
		if at < 0 || strings.Contains(string(text)[:at], "\nhost ") {
			t.Errorf("%s: the rule isn't above the first host line:\n%s", sh.name, text)
		}
		if st, _ := os.Stat(hba); st.Mode().Perm() != 0o604 {
			t.Errorf("%s: mode %o, want 604 kept", sh.name, st.Mode().Perm())
		}
		if got := pgDetect(t, sh, db, role, "127.0.0.1/32"); got.Verdict != observation.Converged {
			t.Errorf("%s: detected %s %q %v after both steps, want converged", sh.name, got.Verdict, got.Reason, got.Drift)
		}
		before := fileState(t, hba)
		if code, stderr := userRun(t, sh, "pg-hba", db, role, "127.0.0.1/32", "scram-sha-256"); code != 0 || fileState(t, hba) != before {
			t.Errorf("%s: pg-hba again: exit %d (%s), or the file changed", sh.name, code, stderr)
		}

		os.Chown(hba, 0, -1)
		before = fileState(t, hba)
		code, stderr := userRun(t, sh, "pg-hba", db, role, "10.0.0.0/8", "md5")
		if code != 93 || !strings.Contains(stderr, "belongs to root, not postgres") || fileState(t, hba) != before {
			t.Errorf("%s: pg-hba of a file root owns: exit %d (%s), or the file changed", sh.name, code, stderr)
		}
		pgOwn(t, hba)

		bogus := exec.Command("sudo", "-n", "-u", "postgres", "sh", "-c", `echo "host all bogus" >> "$1"`, "sh", hba)
		if out, err := bogus.CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		before = fileState(t, hba)
		code, stderr = userRun(t, sh, "pg-hba", db, role, "10.0.0.0/8", "md5")
		if code != 1 || !strings.Contains(stderr, "can't parse") || !strings.Contains(stderr, "the old "+hba+" is back") || fileState(t, hba) != before {
			t.Errorf("%s: pg-hba into a file the server can't parse: exit %d (%s), or the file isn't the old one", sh.name, code, stderr)
		}
		if l := leftovers(t, hba); len(l) != 0 {
			t.Errorf("%s: left beside %s: %v", sh.name, hba, l)
		}
		drop := exec.Command("sudo", "-n", "-u", "postgres", "sed", "-i", "/^host all bogus$/d", hba)
		if out, err := drop.CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
	}
}

// pgDetect runs database.PgProbe under sh, as root, and returns the verdict
// of the database db owned by role with a rule for each of hosts.
func pgDetect(t *testing.T, sh userShell, db, role string, hosts ...string) detect.Result {
	t.Helper()
	var out strings.Builder
	code, stderr := userExec(t, sh, database.PgProbe, &out)
	if stderr != "" {
		t.Logf("PgProbe's stderr: %s", stderr)
	}
	d := &declaration.Database{Engine: "postgresql", DatabaseName: declaration.Lit(db), Username: declaration.Lit(role)}
	if len(hosts) > 0 {
		d.Auth = &declaration.DatabaseAuth{}
		for _, h := range hosts {
			d.Auth.Hosts = append(d.Auth.Hosts, declaration.Lit(h))
		}
	}
	return database.NewDatabase(d, detect.Env{}).Verdict([]detect.Answer{{Status: detect.StatusOK, Exit: code, Output: out.String()}})
}

// pgOwn gives hba back to postgres.
func pgOwn(t *testing.T, hba string) {
	t.Helper()
	if out, err := exec.Command("chown", "postgres", hba).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
}

// TestPgNameRefusals: a name or argument pg_hba.conf would misread exits
// 93 before psql runs.
func TestPgNameRefusals(t *testing.T) {
	if _, err := exec.LookPath("psql"); err != nil {
		t.Skip("no psql here: the scripts check for it first (.ci/run installs postgresql)")
	}
	if os.Geteuid() != 0 {
		t.Skip("the scripts look the postgres account up first; run as root")
	}
	for _, sh := range opShells(t, "pg", os.Getenv("PATH"), pgTools) {
		for _, args := range [][]string{
			{"pg-database", "a b", "r"}, {"pg-database", "d", "-r"}, {"pg-database", "d#", "r"}, {"pg-database", `d"`, "r"},
			{"pg-database", "d,e", "r"}, {"pg-database", "+d", "r"}, {"pg-database", "d"},
			{"pg-hba", "d", "r", "db.local", "md5"}, {"pg-hba", "d", "r", "10.0.0.1", "md5"}, {"pg-hba", "d", "r", "10.0.0.0/8", "trust"},
			{"pg-hba", "@d", "r", "10.0.0.0/8", "md5"},
		} {
			if code, stderr := userRun(t, sh, plan.OpName(args[0]), args[1:]...); code != 93 {
				t.Errorf("%s: %q: exit %d (%s), want 93", sh.name, args, code, stderr)
			}
		}
	}
}
