package mask

import (
	"bytes"
	"sort"
	"strings"
	"testing"
)

var fuzzSeeds = []string{
	"hunter2hunter2", " it's a \"secret\" & <more> ", pemKey, strings.ReplaceAll(pemKey, "\n", `\n`),
	"postgres://app:s3cretpassw0rd@db/app", "postgres://app:postgres@db/app", "postgres://app:p%40ss#w0rd@db",
	"https://ghp_abcdefgh12345678@github.com/o/r", "Authorization: Basic YWRtaW46c3VwM3JzM2NyZXQ=",
	"Bearer abcdef0123456789XYZ", "Q", "]x", "pass\u200bword\t12", "aaaa",
}

// FuzzMaskForms checks that no form of a secret survives in the text between
// the replacements, wherever the text holds one.
func FuzzMaskForms(f *testing.F) {
	for i, s := range fuzzSeeds {
		f.Add(s, "before ", " after", uint16(i))
	}
	f.Fuzz(func(t *testing.T, secret, prefix, suffix string, pick uint16) {
		fs := sortedForms(secret)
		m := New(map[string]string{"S": secret})
		if len(fs) == 0 {
			if in := prefix + secret + suffix; m.String(in) != in {
				t.Fatalf("a secret with no forms changed %q", in)
			}
			return
		}
		form := fs[int(pick)%len(fs)]
		in := prefix + form + suffix
		out := m.String(in)
		if !strings.Contains(out, "[MASKED:S]") {
			t.Fatalf("nothing masked in %q (form %q)", in, form)
		}
		for _, seg := range strings.Split(out, "[MASKED:S]") {
			for _, f := range fs {
				if strings.Contains(seg, f) {
					t.Fatalf("String(%q) = %q still holds form %q", in, out, f)
				}
			}
		}
		if again := m.String(in); again != out {
			t.Fatalf("String isn't deterministic: %q then %q", out, again)
		}
		if again := New(map[string]string{"S": secret}).String(in); again != out {
			t.Fatalf("a second Masker gives %q, the first %q", again, out)
		}
	})
}

func sortedForms(secret string) []string {
	var fs []string
	for f := range forms(secret) {
		fs = append(fs, f)
	}
	sort.Strings(fs)
	return fs
}

// FuzzWriter checks that a Writer's output equals String of the whole input
// however the input is split into writes, with up to three secrets.
func FuzzWriter(f *testing.F) {
	f.Add("hunter2hunter2\x00hunter2\x00prefix-two", []byte("a hunter2hunter2 b hunter2 c prefix-tw"), []byte{3, 1, 7, 0, 2})
	f.Add(pemKey+"\x00"+"postgres://app:s3cretpassw0rd@db/app", []byte(pemKey+" s3cretpassw0rd"), []byte{5, 60, 1})
	f.Add("aaab\x00aab\x00ab", []byte("aaaaaabaabab"), []byte{1, 1, 1, 1, 1, 1})
	f.Fuzz(func(t *testing.T, secrets string, in []byte, splits []byte) {
		values := strings.SplitN(secrets, "\x00", 3)
		m := New(map[string]string{"A": values[0], "B": at(values, 1), "C": at(values, 2)})
		want := m.String(string(in))
		if got := m.Bytes(in); string(got) != want {
			t.Fatalf("Bytes = %q, String = %q", got, want)
		}
		var b bytes.Buffer
		w := NewWriter(&b, m)
		rest := in
		for _, s := range splits {
			n := min(int(s)%32, len(rest))
			if k, err := w.Write(rest[:n]); k != n || err != nil {
				t.Fatalf("Write = %d, %v", k, err)
			}
			rest = rest[n:]
		}
		if _, err := w.Write(rest); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if b.String() != want {
			t.Fatalf("Writer wrote %q, String gives %q (splits %v)", b.String(), want, splits)
		}
		if len(w.pending) != 0 {
			t.Fatalf("Close left %q pending", w.pending)
		}
	})
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return ""
}
