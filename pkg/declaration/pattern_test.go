package declaration

import (
	"regexp"
	"strings"
	"testing"
)

// Every pattern compiles: they are compiled on first use, so a mistake in
// one would otherwise show only when a declaration first needs it.
func TestPatternsCompile(t *testing.T) {
	if len(patterns) == 0 {
		t.Fatal("no patterns registered")
	}
	for _, p := range patterns {
		if _, err := regexp.Compile(p.expr); err != nil {
			t.Errorf("%s: %v", p.expr, err)
		}
		if p.regexp() == nil {
			t.Errorf("%s: not compiled", p.expr)
		}
	}
}

// The regular expressions ValidID and ValidMode check by hand.
var (
	idRegexp   = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)
	modeRegexp = regexp.MustCompile(`^[0-7]{1,4}$`)
)

var idSeeds = []string{"", "a", "_", "0", ".", "-", "a.b-c_d", "a\n", "\na", "a b", "é", "aé", "a\x00",
	strings.Repeat("a", 128), strings.Repeat("a", 129), "f1999", "bench", "-a", "a-", "a..",
	"0644", "7777", "8", "07777", "", "64 4", "+1", "0o7", "٣"}

// ValidID and ValidMode accept exactly what their regular expressions do.
func TestValidIDAndModeMatchRegexps(t *testing.T) {
	for _, s := range idSeeds {
		checkIDAndMode(t, s)
	}
}

func FuzzValidIDAndMode(f *testing.F) {
	for _, s := range idSeeds {
		f.Add(s)
	}
	f.Fuzz(checkIDAndMode)
}

func checkIDAndMode(t *testing.T, s string) {
	if got, want := ValidID(s), idRegexp.MatchString(s); got != want {
		t.Errorf("ValidID(%q) = %v, the pattern says %v", s, got, want)
	}
	if got, want := ValidMode(s), modeRegexp.MatchString(s); got != want {
		t.Errorf("ValidMode(%q) = %v, the pattern says %v", s, got, want)
	}
}
