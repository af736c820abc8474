package ts_test

import (
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"
)

// printed is what sh prints for printf %s of the shell word w.
func printed(t testing.TB, w string) string {
	t.Helper()
	out, err := exec.Command("sh", "-c", "printf %s "+w).Output()
	if err != nil {
		t.Fatalf("sh -c 'printf %%s %s': %v", w, err)
	}
	return string(out)
}

func TestSingleQuote(t *testing.T) {
	m := load(t, "shell.ts")
	for _, s := range []string{"", "plain", "it's", "'", "''", `a\b`, "$(id) `id` ${HOME}", "two\nlines", " lead and trail ", "*?[a]", "é ✓", "-n"} {
		w := m.str(t, "single_quote", s)
		if !strings.HasPrefix(w, "'") || !strings.HasSuffix(w, "'") {
			t.Errorf("single_quote(%q) = %q, not one single-quoted word", s, w)
		}
		if got := printed(t, w); got != s {
			t.Errorf("sh reads single_quote(%q) = %q as %q", s, w, got)
		}
	}
	// A reference stays whole, inside the quotes.
	if got, want := m.str(t, "single_quote", "a'"+ref("X")), `'a'\''`+ref("X")+"'"; got != want {
		t.Errorf("single_quote of a reference = %q, want %q", got, want)
	}
	m.refused(t, "NUL", "single_quote", "a\x00b")
	m.refused(t, "takes a string", "single_quote", 3)
}

// FuzzSingleQuote: whatever the text (but a NUL), sh reads the quoted word
// back as exactly that text.
func FuzzSingleQuote(f *testing.F) {
	for _, s := range []string{"", "'", `'\''`, "a b", "$x", "\n", "\\", "'$(touch /tmp/pwned)'"} {
		f.Add(s)
	}
	m := load(f, "shell.ts")
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsRune(s, 0) || !utf8.ValidString(s) {
			t.Skip("a NUL or invalid UTF-8 isn't a JavaScript string a config can hold")
		}
		w := m.str(t, "single_quote", s)
		if got := printed(t, w); got != s {
			t.Fatalf("sh reads single_quote(%q) = %q as %q", s, w, got)
		}
	})
}

func TestSudoAsUser(t *testing.T) {
	m := load(t, "shell.ts")
	if got, want := m.str(t, "sudo_as_user", "app"), "sudo -n -H -u 'app' --"; got != want {
		t.Errorf("sudo_as_user(app) = %q, want %q", got, want)
	}
	if got, want := m.str(t, "sudo_as_user", "www-data"), "sudo -n -H -u 'www-data' --"; got != want {
		t.Errorf("sudo_as_user(www-data) = %q, want %q", got, want)
	}
	for _, c := range []struct{ user, want string }{
		{"", "the user is empty"},
		{"  ", "the user is empty"},
		{"#0", "starts with #, which sudo -u reads as a uid"},
		{"#1000", "starts with #"},
		{ref("APP_USER"), "the user is a reference"},
		{"app-" + ref("N"), "the user is a reference"},
		{"-x", "starts with -"},
		{"a b", "holds a blank"},
		{"a\nb", "holds a blank"},
		{"a:b", "a : or a /"},
	} {
		m.refused(t, c.want, "sudo_as_user", c.user)
	}
	m.refused(t, "sudo_as_user: the user is a string, not undefined", "sudo_as_user")
}
