package mask

import (
	"bytes"
	"strings"
	"testing"
)

const pemKey = "-----BEGIN PRIVATE KEY-----\n" +
	"MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n" +
	"VJTUt9Us8cKjMzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDu\n" +
	"short line\n" +
	"-----END PRIVATE KEY-----\n"

const pemLine1 = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"

func TestString(t *testing.T) {
	tests := []struct {
		name    string
		secrets map[string]string
		in      string
		want    string
	}{
		// The value and its forms.
		{"as is", map[string]string{"DB_PASS": "hunter2hunter2"},
			"pw=hunter2hunter2!", "pw=[MASKED:DB_PASS]!"},
		{"every occurrence", map[string]string{"DB_PASS": "hunter2hunter2"},
			"hunter2hunter2 and hunter2hunter2", "[MASKED:DB_PASS] and [MASKED:DB_PASS]"},
		{"glued occurrences", map[string]string{"S": "abcd1234"},
			"abcd1234abcd1234", "[MASKED:S][MASKED:S]"},
		{"trimmed", map[string]string{"TOKEN": "  tok3n-value \n"},
			"got tok3n-value here", "got [MASKED:TOKEN] here"},
		{"untrimmed wins over trimmed", map[string]string{"TOKEN": " tok3n-value "},
			"[ tok3n-value ]", "[[MASKED:TOKEN]]"},
		{"query-escaped", map[string]string{"S": "a b&c=d/e?"},
			"?k=a+b%26c%3Dd%2Fe%3F&x=1", "?k=[MASKED:S]&x=1"},
		{"path-escaped", map[string]string{"S": "a b&c=d/e?"},
			"/files/a%20b&c=d%2Fe%3F/", "/files/[MASKED:S]/"},
		{"non-ASCII URL-encoded", map[string]string{"S": "pässwörd-ünïcode"},
			"p%C3%A4ssw%C3%B6rd-%C3%BCn%C3%AFcode", "[MASKED:S]"},
		{"JSON-escaped with HTML escapes", map[string]string{"S": `p"a\ss<>`},
			`{"v":"p\"a\\ss\u003c\u003e"}`, `{"v":"[MASKED:S]"}`},
		{"JSON-escaped without HTML escapes", map[string]string{"S": `p"a\ss<>`},
			`{"v":"p\"a\\ss<>"}`, `{"v":"[MASKED:S]"}`},
		{"JSON-escaped line break", map[string]string{"S": "line one\nline two"},
			`"line one\nline two"`, `"[MASKED:S]"`},
		{"JSON stream escape of an invisible character", map[string]string{"S": "pass\u200bword12"},
			`"pass\u200bword12"`, `"[MASKED:S]"`},
		{"text escape of an invisible character", map[string]string{"S": "pass\u200bword12"},
			"pw pass<U+200B>word12", "pw [MASKED:S]"},
		{"shell single-quoted", map[string]string{"S": "it's-a-secret"},
			`echo 'it'\''s-a-secret'`, `echo '[MASKED:S]'`},
		{"raw value beside its quoted form", map[string]string{"S": "it's-a-secret"},
			"it's-a-secret", "[MASKED:S]"},

		// Multi-line values.
		{"PEM key whole", map[string]string{"KEY": pemKey},
			"key:\n" + pemKey + "done", "key:\n[MASKED:KEY]done"},
		{"PEM key line alone", map[string]string{"KEY": pemKey},
			"bad line " + pemLine1 + " here", "bad line [MASKED:KEY] here"},
		{"PEM armor and short line aside", map[string]string{"KEY": pemKey},
			"-----BEGIN PRIVATE KEY----- short line", "-----BEGIN PRIVATE KEY----- short line"},
		{"PEM key JSON-escaped", map[string]string{"KEY": pemKey},
			`"` + strings.ReplaceAll(pemKey, "\n", `\n`) + `"`, `"[MASKED:KEY]"`},
		{"PEM key written on one line, decoded", map[string]string{"KEY": strings.ReplaceAll(pemKey, "\n", `\n`)},
			pemKey, "[MASKED:KEY]"},
		{"PEM key written on one line, a line alone", map[string]string{"KEY": strings.ReplaceAll(pemKey, "\n", `\n`)},
			pemLine1 + "\n", "[MASKED:KEY]\n"},
		{"CRLF lines", map[string]string{"S": "first line of the value abc\r\nsecond line of the value xyz\r\n"},
			"second line of the value xyz", "[MASKED:S]"},
		{"a one-line value has no lines", map[string]string{"S": "x-" + pemLine1},
			pemLine1, pemLine1},

		// Credentials inside a value.
		{"URL password", map[string]string{"DATABASE_URL": "postgres://app:s3cretpassw0rd@db/app"},
			"auth failed: s3cretpassw0rd", "auth failed: [MASKED:DATABASE_URL]"},
		{"URL whole", map[string]string{"DATABASE_URL": "postgres://app:s3cretpassw0rd@db/app"},
			"url postgres://app:s3cretpassw0rd@db/app", "url [MASKED:DATABASE_URL]"},
		{"URL password under 8 characters", map[string]string{"U": "postgres://app:pw12345@db/app"},
			"pw12345 postgres://app:pw12345@db/app", "pw12345 [MASKED:U]"},
		{"URL password found elsewhere in its value", map[string]string{"U": "postgres://app:postgres@db/app"},
			"postgres is up; postgres://app:postgres@db/app", "postgres is up; [MASKED:U]"},
		{"URL password that is a longer word elsewhere", map[string]string{"U": "postgres://app:appuser99@db/appuser99"},
			"appuser99", "appuser99"},
		{"URL password holding #, as libpq reads it", map[string]string{"U": "postgres://app:p#ssw0rd!@db/app"},
			"p#ssw0rd!", "[MASKED:U]"},
		{"URL password percent-encoded and decoded", map[string]string{"U": "postgres://app:p%40ssw0rd99@db/app"},
			"p%40ssw0rd99 p@ssw0rd99", "[MASKED:U] [MASKED:U]"},
		{"port then query with an @", map[string]string{"U": "postgres://db:5432/app?user=a@b.c"},
			"5432/app?user=a", "5432/app?user=a"},
		{"https user is a token", map[string]string{"REPO": "https://ghp_abcdefgh12345678@github.com/o/r.git"},
			"remote: ghp_abcdefgh12345678", "remote: [MASKED:REPO]"},
		{"git+https user is a token", map[string]string{"REPO": "git+https://tok3n-abcdefgh@git.example.com/r"},
			"tok3n-abcdefgh", "[MASKED:REPO]"},
		{"ssh user is an account", map[string]string{"REPO": "ssh://deployer1@host/r"},
			"deployer1 ssh://deployer1@host/r", "deployer1 [MASKED:REPO]"},
		{"postgres user is an account", map[string]string{"U": "postgres://appuser12:longpassword@db/app"},
			"appuser12 longpassword", "appuser12 [MASKED:U]"},
		{"bearer token", map[string]string{"AUTH": "Authorization: Bearer abcdef0123456789XYZ"},
			"token abcdef0123456789XYZ rejected", "token [MASKED:AUTH] rejected"},
		{"bearer in any case", map[string]string{"AUTH": "bearer abcdef0123456789XYZ"},
			"abcdef0123456789XYZ", "[MASKED:AUTH]"},
		{"bearer token under 8 characters", map[string]string{"AUTH": "Bearer abc1234"},
			"abc1234", "abc1234"},
		{"basic credentials and the password inside", map[string]string{"AUTH": "Basic YWRtaW46c3VwM3JzM2NyZXQ="},
			"YWRtaW46c3VwM3JzM2NyZXQ= sup3rs3cret admin", "[MASKED:AUTH] [MASKED:AUTH] admin"},

		// Several secrets.
		{"longest first", map[string]string{"A": "abcdefgh", "B": "abcdefghijkl"},
			"abcdefghijkl abcdefghX", "[MASKED:B] [MASKED:A]X"},
		{"shared prefix", map[string]string{"A": "prefix-one-secret", "B": "prefix-two-secret"},
			"prefix-two-secret/prefix-one-secret/prefix-", "[MASKED:B]/[MASKED:A]/prefix-"},
		{"overlapping secrets, leftmost wins", map[string]string{"A": "aaabbb", "B": "bbbccc"},
			"aaabbbccc", "[MASKED:A]ccc"},
		{"a secret inside another", map[string]string{"INNER": "s3cretpassw0rd", "URL": "postgres://app:s3cretpassw0rd@db/app"},
			"postgres://app:s3cretpassw0rd@db/app s3cretpassw0rd", "[MASKED:URL] [MASKED:INNER]"},
		{"same value, first name", map[string]string{"B": "samevalue123", "A": "samevalue123"},
			"samevalue123", "[MASKED:A]"},
		{"the value's own name beats a credential", map[string]string{"API_TOKEN": "tok3nvalue99", "A_URL": "https://x:tok3nvalue99@h/"},
			"tok3nvalue99", "[MASKED:API_TOKEN]"},
		{"secret inside a plain value", map[string]string{"DB_PASS": "hunter2hunter2"},
			"HEALTH_URL=https://db.example/?k=hunter2hunter2", "HEALTH_URL=https://db.example/?k=[MASKED:DB_PASS]"},

		// What is left alone.
		{"empty secret", map[string]string{"E": ""}, "anything", "anything"},
		{"whitespace secret", map[string]string{"E": " \t\n"}, "a  \t\n b", "a  \t\n b"},
		{"a one-character secret is still a value", map[string]string{"S": "Q"}, "aQb", "a[MASKED:S]b"},
		{"no secrets", nil, "hunter2", "hunter2"},
		{"replaced text isn't scanned again", map[string]string{"S": "MASKED"}, "MASKED", "[MASKED:S]"},
		{"partial occurrence", map[string]string{"S": "hunter2hunter2"}, "hunter2hunter", "hunter2hunter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New(tt.secrets)
			if got := m.String(tt.in); got != tt.want {
				t.Fatalf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			if got := m.Bytes([]byte(tt.in)); string(got) != tt.want {
				t.Fatalf("Bytes(%q) = %q, want %q", tt.in, got, tt.want)
			}
			for split := 0; split <= len(tt.in); split++ {
				var b bytes.Buffer
				w := NewWriter(&b, m)
				for _, p := range []string{tt.in[:split], tt.in[split:]} {
					if n, err := w.Write([]byte(p)); n != len(p) || err != nil {
						t.Fatalf("Write = %d, %v", n, err)
					}
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				if b.String() != tt.want {
					t.Fatalf("Writer split at %d: %q, want %q", split, b.String(), tt.want)
				}
			}
		})
	}
	if len(tests) < 40 {
		t.Fatalf("only %d cases", len(tests))
	}
}

func TestNilMasker(t *testing.T) {
	var m *Masker
	if m.String("x") != "x" || string(m.Bytes([]byte("x"))) != "x" {
		t.Fatal("a nil Masker changed its input")
	}
	var b bytes.Buffer
	w := NewWriter(&b, m)
	if _, err := w.Write([]byte("abc")); err != nil || b.String() != "abc" {
		t.Fatalf("nil Masker Writer: %q, %v", b.String(), err)
	}
}

// TestWriterHoldsBackOnlyAPrefix checks that a Writer passes on text as soon
// as no form could start in it.
func TestWriterHoldsBackOnlyAPrefix(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b, New(map[string]string{"S": "hunter2hunter2"}))
	steps := []struct{ write, have string }{
		{"line one\n", "line one\n"},
		{"pw=hunt", "line one\npw="},
		{"er2hunter2", "line one\npw=[MASKED:S]"},
		{" hunter2hunter", "line one\npw=[MASKED:S] "},
		{"X", "line one\npw=[MASKED:S] hunter2hunterX"},
		{"hunter2hun", "line one\npw=[MASKED:S] hunter2hunterX"},
	}
	for _, s := range steps {
		if _, err := w.Write([]byte(s.write)); err != nil {
			t.Fatal(err)
		}
		if b.String() != s.have {
			t.Fatalf("after writing %q: %q, want %q", s.write, b.String(), s.have)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if want := "line one\npw=[MASKED:S] hunter2hunterXhunter2hun"; b.String() != want {
		t.Fatalf("after Close: %q, want %q", b.String(), want)
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	f.n++
	return 0, errFail
}

var errFail = &failErr{}

type failErr struct{}

func (*failErr) Error() string { return "disk full" }

func TestWriterError(t *testing.T) {
	fw := &failWriter{}
	w := NewWriter(fw, New(map[string]string{"S": "secret99"}))
	if _, err := w.Write([]byte("hello")); err != errFail {
		t.Fatalf("Write error %v", err)
	}
	if _, err := w.Write([]byte("again")); err != errFail || fw.n != 1 {
		t.Fatalf("a second Write: %v after %d writes", err, fw.n)
	}
	if err := w.Close(); err != errFail {
		t.Fatalf("Close error %v", err)
	}
}

// TestForms checks that every form env.md lists is among what a value masks.
func TestForms(t *testing.T) {
	v := " it's a \"secret\" & <more>/?= \t"
	fs := forms(v)
	trimmed := strings.TrimSpace(v)
	for _, want := range []string{
		v, trimmed,
		"it%27s+a+%22secret%22+%26+%3Cmore%3E%2F%3F%3D",     // query-escaped
		"it%27s%20a%20%22secret%22%20&%20%3Cmore%3E%2F%3F=", // path-escaped
		`it's a \"secret\" \u0026 \u003cmore\u003e/?=`,      // JSON
		`it's a \"secret\" & <more>/?=`,                     // JSON without HTML escapes
		`it'\''s a "secret" & <more>/?=`,                    // shell
	} {
		if _, ok := fs[want]; !ok {
			t.Errorf("forms of %q lack %q", v, want)
		}
	}
}
