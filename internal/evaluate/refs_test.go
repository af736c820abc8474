package evaluate

import (
	"encoding/json"
	"testing"
)

func TestParseText(t *testing.T) {
	issued := map[string]bool{"A": true, "HOME": true}
	m := marker
	for _, c := range []struct {
		in, want string // want is the Text's JSON, or "" for damage
	}{
		{"plain", `"plain"`},
		{"", `""`},
		{m("A"), `{"$env":"A"}`},
		{"x" + m("A") + "y" + m("HOME"), `{"$text":["x",{"$env":"A"},"y",{"$env":"HOME"}]}`},
		{m("A") + m("A"), `{"$text":[{"$env":"A"},{"$env":"A"}]}`},
		{m("B"), ""},                // never issued
		{m("home"), ""},             // case changed
		{m("A")[:4], ""},            // sliced: the close is gone
		{m("HOME")[3:], ""},         // sliced: the open is gone
		{"\uFDD0A", ""},             // open without close
		{"\uFDD0A-B\uFDD1", ""},     // not a name
		{"\uFDD0\uFDD0A\uFDD1", ""}, // open inside open
	} {
		got, err := parseText(c.in, issued)
		if c.want == "" {
			if err == nil {
				t.Errorf("parseText(%q) = %v, want damage", c.in, got)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseText(%q): %v", c.in, err)
			continue
		}
		out, _ := json.Marshal(got)
		if string(out) != c.want {
			t.Errorf("parseText(%q) = %s, want %s", c.in, out, c.want)
		}
	}
}

func TestDisplayMarkers(t *testing.T) {
	for in, want := range map[string]string{
		"NAME":      "NAME",
		marker("X"): "{env:X}",
		"a\uFDD0X":  "a<U+FDD0>X",
	} {
		if got := displayMarkers(in); got != want {
			t.Errorf("displayMarkers(%q) = %q, want %q", in, got, want)
		}
	}
}
