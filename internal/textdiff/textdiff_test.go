package textdiff

import (
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/mask"
)

func TestShowUnified(t *testing.T) {
	got := Show(Input{From: "/etc/motd (target)", To: "inline (config: motd)",
		Current: []byte("one\ntwo\nthree\nfour\nfive\nsix\n"), Desired: []byte("one\ntwo\nthree\nFOUR\nfive\nsix\n")})
	want := `--- /etc/motd (target)
+++ inline (config: motd)
@@ -1,6 +1,6 @@
 one
 two
 three
-four
+FOUR
 five
 six
`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestShowNewFileAllAdded(t *testing.T) {
	got := Show(Input{From: "/x", To: "inline", Absent: true, Desired: []byte("a\nb")})
	want := "--- /x\n+++ inline\n@@ -0,0 +1,2 @@\n+a\n+b\n\\ No newline at end of file\n"
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestShowSame(t *testing.T) {
	if got := Show(Input{From: "/x", To: "inline", Current: []byte("a\n"), Desired: []byte("a\n")}); got != "" {
		t.Fatalf("same bytes: got %q, want none", got)
	}
}

func TestShowSummary(t *testing.T) {
	big := []byte(strings.Repeat("x", Limit+1))
	for _, tc := range []struct {
		name string
		in   Input
		want string
	}{
		{"binary", Input{Current: []byte("a\x00b"), Desired: []byte("abc\n")},
			"binary or large: 3 bytes → 4 bytes, sha512 "},
		{"not utf-8", Input{Current: []byte("\xff\xfe"), Desired: []byte("abc\n")},
			"binary or large: 2 bytes → 4 bytes, sha512 "},
		{"large desired", Input{Current: []byte("a\n"), Desired: big},
			"binary or large: 2 bytes → 262145 bytes, sha512 "},
		{"large current, not read", Input{Current: big[:Limit], Size: 10 << 20, CurrentSHA512: strings.Repeat("ab", 64), Desired: []byte("a\n")},
			"binary or large: 10485760 bytes → 2 bytes, sha512 abababababababab… → "},
		{"new binary", Input{Absent: true, Desired: []byte{0, 1, 2}},
			"binary or large: no file → 3 bytes, sha512 none → "},
	} {
		got := Show(tc.in)
		if !strings.HasPrefix(got, tc.want) || strings.Count(got, "\n") != 1 {
			t.Errorf("%s: got %q, want it to start %q and be one line", tc.name, got, tc.want)
		}
	}
}

func TestShowMasksSecrets(t *testing.T) {
	m := mask.New(map[string]string{"DB_PASSWORD": "hunter2-correct-horse"})
	in := Input{From: "/etc/app.conf", To: "template", Mask: m, Secrets: []string{"hunter2-correct-horse"},
		Current: []byte("host=db\npassword=hunter2-correct-horse\nport=1\n"),
		Desired: []byte("host=db2\npassword=hunter2-correct-horse\nport=1\n")}
	got := Show(in)
	if strings.Contains(got, "hunter2") || !strings.Contains(got, " password=[MASKED:DB_PASSWORD]\n") || !strings.Contains(got, "+host=db2\n") {
		t.Fatalf("got\n%s", got)
	}
}

func TestShowWithholds(t *testing.T) {
	m := mask.New(map[string]string{"DB_PASSWORD": "hunter2-correct-horse"})
	key := func(s string) string { return "f" + s }
	for _, tc := range []struct {
		name string
		in   Input
	}{
		{"an earlier value on the target", Input{Mask: m, Secrets: []string{"hunter2-correct-horse"}, Fingerprint: key,
			Current: []byte("password=old-secret-value\n"), Desired: []byte("password=hunter2-correct-horse\n")}},
		{"a value over lines", Input{Mask: m, Secrets: []string{"a\nb"},
			Current: []byte("x\n"), Desired: []byte("a\nb\n")}},
		{"a blank value", Input{Mask: m, Secrets: []string{"  "},
			Current: []byte("x\n"), Desired: []byte("  \n")}},
		{"binary", Input{Mask: m, Secrets: []string{"hunter2-correct-horse"},
			Current: []byte("\x00"), Desired: []byte("password=hunter2-correct-horse\n")}},
	} {
		got := Show(tc.in)
		if !strings.HasPrefix(got, "content withheld: holds a secret (") || strings.Contains(got, "old-secret") || strings.Contains(got, "hunter2") {
			t.Errorf("%s: got %q", tc.name, got)
		}
	}
}

// FuzzShowNeverShowsASecret: whatever the two sides hold, no secret value
// the desired content takes is in what Show returns.
func FuzzShowNeverShowsASecret(f *testing.F) {
	f.Add("a\npassword=s3cret-value\n", "password=s3cret-value\nb\n", "s3cret-value")
	f.Add("x", "s3cret-value", "s3cret-value")
	f.Add("s3cret-\nvalue", "", "s3cret-\nvalue")
	f.Fuzz(func(t *testing.T, cur, want, secret string) {
		// A short or digits-only secret can stand in the output's own
		// words and sizes by chance.
		if len(strings.TrimSpace(secret)) < 4 || strings.Trim(secret, "0123456789 ") == "" {
			return
		}
		m := mask.New(map[string]string{"S": secret})
		got := Show(Input{From: "a", To: "b", Current: []byte(cur), Desired: []byte(want), Mask: m, Secrets: []string{secret}})
		if strings.Contains(got, secret) && !strings.Contains("a b --- +++ @@ \\ No newline at end of file content withheld: holds a secret binary or large sha512 bytes no file none unknown fingerprint → … ()[]:MASKED S", secret) {
			t.Fatalf("secret %q shown in %q", secret, got)
		}
	})
}
