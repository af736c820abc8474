package suggest

import (
	"strings"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"content", "content", 0},
		{"contnet", "content", 1}, // transposition
		{"aply", "apply", 1},      // deletion
		{"dif", "diff", 1},
		{"kitten", "sitting", 3},
		{"mode", "owner", 4},
		{"ca", "abc", 3}, // optimal string alignment, not full Damerau
		{"héllo", "hello", 1},
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := Distance(tc.b, tc.a); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (symmetric)", tc.b, tc.a, got, tc.want)
		}
	}
}

func TestClosest(t *testing.T) {
	fields := []string{"path", "content", "mode", "owner", "group", "source"}
	commands := []string{"plan", "apply", "wetrun", "status", "lock", "init"}
	for _, tc := range []struct {
		name       string
		candidates []string
		want       string
	}{
		{"contnet", fields, "content"},
		{"conten", fields, "content"},
		{"Content", fields, "content"},
		{"mod", fields, "mode"},
		{"ownr", fields, "owner"},
		{"sourec", fields, "source"},
		{"aply", commands, "apply"},
		{"stauts", commands, "status"},
		{"wterun", commands, "wetrun"},
		{"x", fields, ""},
		{"colour", fields, ""},
		{"destination", fields, ""},
		{"", fields, ""},
		{"content", fields, ""}, // the name itself is no suggestion
		{strings.Repeat("a", 1000), fields, ""},
		{"plna", nil, ""},
	} {
		got, ok := Closest(tc.name, tc.candidates)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("Closest(%.20q) = %q, %v; want %q", tc.name, got, ok, tc.want)
		}
	}
}

func TestClosestTiesGoFirst(t *testing.T) {
	if got, _ := Closest("bat", []string{"cat", "bar"}); got != "cat" {
		t.Errorf("Closest(bat) = %q, want the first of equals, cat", got)
	}
	if got, _ := Closest("bat", []string{"cat", "bat2", "bt"}); got != "cat" {
		t.Errorf("Closest(bat) = %q, want cat", got)
	}
}

func TestHint(t *testing.T) {
	if got := Hint("contnet", []string{"content"}); got != ` (did you mean "content"?)` {
		t.Errorf("Hint = %q", got)
	}
	if got := Hint("zzz", []string{"content"}); got != "" {
		t.Errorf("Hint for no near name = %q, want empty", got)
	}
}

func FuzzDistance(f *testing.F) {
	f.Add("contnet", "content")
	f.Add("", "x")
	f.Add("héllo", "hello")
	f.Fuzz(func(t *testing.T, a, b string) {
		if len(a) > 200 || len(b) > 200 {
			return
		}
		d := Distance(a, b)
		if d != Distance(b, a) {
			t.Fatalf("not symmetric: %q %q", a, b)
		}
		la, lb := len([]rune(a)), len([]rune(b))
		if d < max(la, lb)-min(la, lb) || d > max(la, lb) {
			t.Fatalf("Distance(%q, %q) = %d out of bounds", a, b, d)
		}
		if (d == 0) != (string([]rune(a)) == string([]rune(b))) {
			t.Fatalf("Distance(%q, %q) = %d", a, b, d)
		}
	})
}
