package database

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/declaration"
)

// hbaInsert puts line in text where the pg-hba script does: above the
// first host-type record, or at the end.
func hbaInsert(text, line string) string {
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		f := strings.FieldsFunc(l, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' })
		if len(f) > 0 && slices.Contains([]string{"host", "hostssl", "hostnossl", "hostgssenc", "hostnogssenc"}, f[0]) {
			return strings.Join(lines[:i], "") + line + "\n" + strings.Join(lines[i:], "")
		}
	}
	return text + line + "\n"
}

// FuzzPgHBAHasFindsTheInsertedRule: for any database, role and address
// the declaration lets through to pg_hba.conf, and any file, the rule the
// pg-hba script inserts is one PgHBAHas then finds (else the database
// drifts on every run while the script finds its line and writes
// nothing); it is found with a comment after it too, and never in a
// comment.
func FuzzPgHBAHasFindsTheInsertedRule(f *testing.F) {
	f.Add("local all all peer\nhost all all 127.0.0.1/32 scram-sha-256\n", "app", "web", "127.0.0.1/32", uint8(0))
	f.Add("# TYPE DATABASE USER ADDRESS METHOD\n\thostssl all all ::1/128 md5", "app_db", "app", "10.0.0.0/8", uint8(1))
	f.Add("", "caf\u00e9", "r\u00f4le", "::1/128", uint8(2))
	f.Add("host all all 0.0.0.0/0 reject\r\n", "a\u00a0b", "web\u2003x", "192.168.1.0/24", uint8(3))
	f.Add("host a\u0085b web 10.0.0.1/32 md5\n", "a\u0085b", "web", "10.0.0.1/32", uint8(4))
	methods := []string{"scram-sha-256", "md5", "password", "gss", "pam", "reject", "ident"}
	f.Fuzz(func(t *testing.T, text, database, role, host string, m uint8) {
		if declaration.CheckHBAName(database, "database") != nil || declaration.CheckHBAName(role, "role") != nil || declaration.CheckHBAHost(host) != nil {
			return
		}
		rule := HBALine(database, role, host, methods[int(m)%len(methods)])
		if in := hbaInsert(text, rule); !PgHBAHas(in, rule) {
			t.Fatalf("the rule %q, inserted, isn't found in\n%q", rule, in)
		}
		if !PgHBAHas(rule+" # mine", rule) {
			t.Fatalf("the rule %q isn't found with a comment after it", rule)
		}
		if PgHBAHas("# "+rule, rule) {
			t.Fatalf("the rule %q is found in a comment", rule)
		}
	})
}

// FuzzParsePgProbe parses any output of the catalog probe without a panic:
// an answer it takes has its hba_file line, a databases map and a
// pg_hba.conf within the limit, and the catalog row it read encodes to a
// row that parses to the same catalog.
func FuzzParsePgProbe(f *testing.F) {
	f.Add("/etc/postgresql/16/main/pg_hba.conf\n{\"roles\":[\"postgres\",\"web\"],\"databases\":{\"app\":\"web\",\"postgres\":\"postgres\"}}\n" + pgHBAMark + "\nlocal all all peer\nhost app web 127.0.0.1/32 scram-sha-256\n")
	f.Add("/p\n{\"roles\":[],\"databases\":{}}\n" + pgHBAMark)
	f.Add("/p\n{\"roles\":[],\"databases\":{}} {}\n" + pgHBAMark + "\n")
	f.Add("/p\n{\"databases\":{},\"x\":1}\n" + pgHBAMark + "\n")
	f.Add("p\n{}\n" + pgHBAMark + "\n")
	f.Fuzz(func(t *testing.T, out string) {
		c, reason := ParsePgProbe(out)
		if reason != "" {
			return
		}
		if !strings.HasPrefix(c.HBAFile, "/") || c.Databases == nil || len(c.HBA) > PgHBALimit {
			t.Fatalf("ParsePgProbe took %q as %+v", out, c)
		}
		row, err := json.Marshal(c)
		if err != nil {
			t.Fatalf("the catalog doesn't encode: %v", err)
		}
		again, reason := ParsePgProbe(c.HBAFile + "\n" + string(row) + "\n" + pgHBAMark + "\n" + c.HBA)
		if reason != "" || !reflect.DeepEqual(again, c) {
			t.Fatalf("the catalog %+v came back as %+v (%s)", c, again, reason)
		}
	})
}
