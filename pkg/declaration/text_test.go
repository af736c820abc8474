package declaration

import (
	"reflect"
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/canon"
)

func TestTextJSONForms(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		parts []Part
	}{
		{"plain string", `"/etc/motd"`, []Part{{Lit: "/etc/motd"}}},
		{"empty string", `""`, nil},
		{"text that looks like a reference", `"{env:HOME} $HOME ${X}"`, []Part{{Lit: "{env:HOME} $HOME ${X}"}}},
		{"one reference", `{"$env":"APP_DIR"}`, []Part{{Env: "APP_DIR"}}},
		{"lowercase name", `{"$env":"_x1"}`, []Part{{Env: "_x1"}}},
		{"text around a reference", `{"$text":["/srv/",{"$env":"APP"},"/current"]}`,
			[]Part{{Lit: "/srv/"}, {Env: "APP"}, {Lit: "/current"}}},
		{"reference first", `{"$text":[{"$env":"APP"},"/x"]}`, []Part{{Env: "APP"}, {Lit: "/x"}}},
		{"two references side by side", `{"$text":[{"$env":"A"},{"$env":"B"}]}`, []Part{{Env: "A"}, {Env: "B"}}},
		{"the same reference twice", `{"$text":[{"$env":"A"},":",{"$env":"A"}]}`, []Part{{Env: "A"}, {Lit: ":"}, {Env: "A"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var x Text
			if err := x.UnmarshalJSON([]byte(tt.in)); err != nil {
				t.Fatalf("UnmarshalJSON(%s): %v", tt.in, err)
			}
			if got := x.Parts(); !reflect.DeepEqual(got, tt.parts) && (len(got) != 0 || len(tt.parts) != 0) {
				t.Errorf("UnmarshalJSON(%s) parts %+v, want %+v", tt.in, got, tt.parts)
			}
			out, err := canon.Marshal(x)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tt.in {
				t.Errorf("%s encodes back as %s", tt.in, out)
			}
		})
	}
}

// TestTextRefusesOtherSpellings: every Text has one spelling, and every other
// way to write it is refused rather than read.
func TestTextRefusesOtherSpellings(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"one-part $text of a string", `{"$text":["abc"]}`, `$text: needs two parts or more and a reference`},
		{"one-part $text of a reference", `{"$text":[{"$env":"A"}]}`, `$text: needs two parts or more and a reference`},
		{"empty $text", `{"$text":[]}`, `$text: needs two parts or more and a reference`},
		{"strings side by side", `{"$text":["a",{"$env":"A"},"b","c"]}`, `$text[3]: two strings side by side are one string`},
		{"strings side by side, no reference", `{"$text":["a","b"]}`, `$text[1]: two strings side by side are one string`},
		{"empty string part", `{"$text":["",{"$env":"A"}]}`, `$text[0]: an empty string is left out`},
		{"empty string part at the end", `{"$text":[{"$env":"A"},""]}`, `$text[1]: an empty string is left out`},
		{"$text not a list", `{"$text":"abc"}`, `$text: want a list`},
		{"$text part a number", `{"$text":["a",1]}`, `$text[1]: want a string or {"$env": NAME}`},
		{"$text part a nested $text", `{"$text":["a",{"$text":["b",{"$env":"A"}]}]}`, `$text[1]: want a string or {"$env": NAME}`},
		{"$text part with two keys", `{"$text":["a",{"$env":"A","x":1}]}`, `$text[1]: want a string or {"$env": NAME}`},
		{"$text part with a bad name", `{"$text":["a",{"$env":"A-B"}]}`, `$text[1]: $env: "A-B" is not an environment variable name`},
		{"bad env name: digit first", `{"$env":"1A"}`, `$env: "1A" is not an environment variable name`},
		{"bad env name: dash", `{"$env":"A-B"}`, `$env: "A-B" is not an environment variable name`},
		{"bad env name: empty", `{"$env":""}`, `$env: "" is not an environment variable name`},
		{"bad env name: dollar", `{"$env":"$A"}`, `$env: "$A" is not an environment variable name`},
		{"bad env name: non-ASCII", `{"$env":"É"}`, `$env: "É" is not an environment variable name`},
		{"env name not a string", `{"$env":1}`, `$env: want a variable name`},
		{"$env with another key", `{"$env":"A","$text":["a",{"$env":"B"}]}`, `a reference object has exactly one key, $env or $text`},
		{"empty object", `{}`, `a reference object has exactly one key, $env or $text`},
		{"unknown key", `{"$ref":"A"}`, `a reference object has exactly one key, $env or $text`},
		{"number", `5`, `want a string, {"$env": NAME} or {"$text": [...]}`},
		{"list", `["a"]`, `want a string, {"$env": NAME} or {"$text": [...]}`},
		{"null", `null`, `want a string, {"$env": NAME} or {"$text": [...]}`},
		{"marker U+FDD0 in a literal", "\"a\uFDD0b\"", `holds a reference marker character (U+FDD0 or U+FDD1)`},
		{"marker U+FDD1 escaped in a literal", `"a\ufdd1"`, `holds a reference marker character (U+FDD0 or U+FDD1)`},
		{"marker in a $text part", "{\"$text\":[\"\uFDD0A\uFDD1\",{\"$env\":\"A\"}]}", `$text[0]: holds a reference marker character`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var x Text
			err := x.UnmarshalJSON([]byte(tt.in))
			if err == nil {
				t.Fatalf("UnmarshalJSON(%s) = %+v, want %q", tt.in, x.Parts(), tt.want)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("UnmarshalJSON(%s)\n got %q\nwant %q", tt.in, err, tt.want)
			}
		})
	}
}

// TestTextErrorNamesItsField checks a refused Text inside a declaration names
// its field's path.
func TestTextErrorNamesItsField(t *testing.T) {
	_, err := Read([]byte(doc(`{"id":"s","type":"script","check":"true","run":{"$text":["echo ",{"$env":"A"},"x","y"]}}`)))
	want := `resources[0] (s).run: $text[3]: two strings side by side are one string`
	if err == nil || err.Error() != want {
		t.Errorf("Read: %v, want %q", err, want)
	}
}

func TestTextConstructors(t *testing.T) {
	if !Lit("").IsZero() {
		t.Error(`Lit("") is not the zero Text`)
	}
	c := Concat(Part{Lit: "/srv"}, Part{}, Part{Lit: "/"}, Part{Env: "APP"}, Part{Lit: ""}, Part{Lit: "/a"}, Part{Lit: "/b"})
	want := []Part{{Lit: "/srv/"}, {Env: "APP"}, {Lit: "/a/b"}}
	if !reflect.DeepEqual(c.Parts(), want) {
		t.Errorf("Concat = %+v, want %+v", c.Parts(), want)
	}
	out, err := canon.Marshal(c)
	if err != nil || string(out) != `{"$text":["/srv/",{"$env":"APP"},"/a/b"]}` {
		t.Errorf("Concat encodes as %s, %v", out, err)
	}
	if got := Concat(Part{Lit: "a"}, Part{Lit: "b"}); !reflect.DeepEqual(got, Lit("ab")) {
		t.Errorf("Concat of two literals = %+v", got.Parts())
	}
	p := c.Parts()
	p[0].Lit = "changed"
	if c.Parts()[0].Lit != "/srv/" {
		t.Error("Parts shares its slice with the Text")
	}
	if !reflect.DeepEqual(Ref("X").Parts(), []Part{{Env: "X"}}) {
		t.Error("Ref")
	}
}

func TestTextAccessors(t *testing.T) {
	x := Concat(Part{Env: "B"}, Part{Lit: "-"}, Part{Env: "A"}, Part{Lit: "-"}, Part{Env: "B"})
	if got := x.Refs(); !reflect.DeepEqual(got, []string{"B", "A"}) {
		t.Errorf("Refs = %q, want first use order", got)
	}
	if !x.HasRefs() || Lit("x").HasRefs() || (Text{}).HasRefs() {
		t.Error("HasRefs")
	}
	if s, ok := Lit("plain").Plain(); !ok || s != "plain" {
		t.Errorf("Plain of a literal = %q, %v", s, ok)
	}
	if s, ok := (Text{}).Plain(); !ok || s != "" {
		t.Errorf("Plain of the zero Text = %q, %v", s, ok)
	}
	if _, ok := x.Plain(); ok {
		t.Error("Plain of a Text with references succeeded")
	}
	if got := x.String(); got != "{env:B}-{env:A}-{env:B}" {
		t.Errorf("String = %q", got)
	}
	env := map[string]string{"A": "1", "B": "2"}
	got, err := x.Resolve(func(n string) (string, bool) { v, ok := env[n]; return v, ok })
	if err != nil || got != "2-1-2" {
		t.Errorf("Resolve = %q, %v", got, err)
	}
	_, err = x.Resolve(func(n string) (string, bool) { return "", n == "B" })
	if err == nil || err.Error() != "reference A is unset" {
		t.Errorf("Resolve with A unset: %v", err)
	}
	m := Concat(Part{Lit: "~/a"}, Part{Env: "A"}, Part{Lit: "~"}).Map(func(s string) string { return strings.ReplaceAll(s, "~", "/home/u") })
	if got := m.String(); got != "/home/u/a{env:A}/home/u" {
		t.Errorf("Map = %q", got)
	}
	if got := Lit("x").Map(func(string) string { return "" }); !got.IsZero() {
		t.Errorf("Map to empty = %+v, want the zero Text", got.Parts())
	}
}

func TestValidEnvName(t *testing.T) {
	for _, ok := range []string{"A", "_", "a1", "APP_DIR", "_9"} {
		if !ValidEnvName(ok) {
			t.Errorf("ValidEnvName(%q) = false", ok)
		}
	}
	for _, bad := range []string{"", "1A", "A-B", "A B", "A.B", "é", "A=B", "A\x00"} {
		if ValidEnvName(bad) {
			t.Errorf("ValidEnvName(%q) = true", bad)
		}
	}
}
