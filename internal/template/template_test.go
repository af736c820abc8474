package template

import (
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/declaration"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		body string
		want []Part
	}{
		{"", nil},
		{"plain", []Part{{Text: "plain"}}},
		{"{{a}}", []Part{{Name: "a"}}},
		{"x {{a}} y {{_b9}}", []Part{{Text: "x "}, {Name: "a"}, {Text: " y "}, {Name: "_b9"}}},
		{"{{ a }}", []Part{{Text: "{{ a }}"}}},
		{"{{ .Values.port }}", []Part{{Text: "{{ .Values.port }}"}}},
		{"{{9a}}", []Part{{Text: "{{9a}}"}}},
		{"{{a-b}}", []Part{{Text: "{{a-b}}"}}},
		{"{{{a}}}", []Part{{Text: "{"}, {Name: "a"}, {Text: "}"}}},
		{"{{a}", []Part{{Text: "{{a}"}}},
		{"{{a}}{{b}}", []Part{{Name: "a"}, {Name: "b"}}},
		{"{{}}", []Part{{Text: "{{}}"}}},
		{"{{é}}", []Part{{Text: "{{é}}"}}},
	} {
		if got := Parse(tc.body); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Parse(%q) = %#v, want %#v", tc.body, got, tc.want)
		}
	}
}

func TestRenderOnePass(t *testing.T) {
	got, err := Render("a={{a}} b={{b}}", map[string]string{"a": "{{b}}", "b": "{{a}}"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "a={{b}} b={{a}}"; got != want {
		t.Errorf("got %q, want %q: a value is never read again", got, want)
	}
	if _, err := Render("{{missing}}", nil); err == nil || !strings.Contains(err.Error(), "{{missing}}") {
		t.Errorf("a placeholder with no value: %v", err)
	}
}

func text(t declaration.Text) declaration.Var { return declaration.Var{Text: &t} }

func raw(s string) declaration.Var { return declaration.Var{JSON: json.RawMessage(s)} }

func env(m map[string]string) Lookup {
	return func(n string) (string, bool) { v, ok := m[n]; return v, ok }
}

func TestValues(t *testing.T) {
	vars := map[string]declaration.Var{
		"host": text(declaration.Concat(declaration.Part{Lit: "www."}, declaration.Part{Env: "DOMAIN"})),
		"port": text(declaration.Ref("PORT")),
		"list": raw(`[ 1, "two" , {"a" : null} ]`),
		"n":    raw(`8080`),
		"lit":  text(declaration.Lit("as is")),
	}
	kinds := map[string]string{"host": "domain", "port": "port", "n": "port"}
	got, err := Values(vars, kinds, env(map[string]string{"DOMAIN": "example.com", "PORT": "443"}))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"host": "www.example.com", "port": "443", "list": `[1,"two",{"a":null}]`, "n": "8080", "lit": "as is"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestValuesRefused(t *testing.T) {
	const secret = "s3cr3t\nInjected=1"
	for _, tc := range []struct {
		name  string
		vars  map[string]declaration.Var
		kinds map[string]string
		env   map[string]string
		want  string
	}{
		{"line feed", map[string]declaration.Var{"v": text(declaration.Ref("X"))}, nil, map[string]string{"X": secret},
			"content.vars.v: the reference X resolves to a value holding a line break"},
		{"carriage return", map[string]declaration.Var{"v": text(declaration.Ref("X"))}, nil, map[string]string{"X": "a\rb"},
			"content.vars.v: the reference X resolves to a value holding a line break"},
		{"nul", map[string]declaration.Var{"v": text(declaration.Ref("X"))}, nil, map[string]string{"X": "a\x00b"},
			"content.vars.v: the reference X resolves to a value holding a NUL"},
		{"delimiter", map[string]declaration.Var{"v": text(declaration.Ref("X"))}, nil, map[string]string{"X": "a\uFDD0b"},
			"reference delimiter"},
		{"not recorded", map[string]declaration.Var{"v": text(declaration.Ref("X"))}, nil, nil,
			"content.vars.v: references X, which the plan's references block doesn't record"},
		{"kind", map[string]declaration.Var{"port": text(declaration.Ref("PORT"))}, map[string]string{"port": "port"}, map[string]string{"PORT": "80; evil"},
			"content.vars.port: resolves (through PORT) to a value that isn't of kind port"},
		{"kind, unset", map[string]declaration.Var{"port": text(declaration.Ref("PORT"))}, map[string]string{"port": "port"}, map[string]string{"PORT": ""},
			"content.vars.port: the reference PORT is unset or empty, so the value isn't of kind port"},
		{"first by name", map[string]declaration.Var{"b": text(declaration.Ref("B")), "a": text(declaration.Ref("A"))}, nil, map[string]string{"A": "\n", "B": "\n"},
			"content.vars.a:"},
	} {
		_, err := Values(tc.vars, tc.kinds, env(tc.env))
		var te *Error
		if !errors.As(err, &te) {
			t.Errorf("%s: got %v, want an *Error", tc.name, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %q, want it to hold %q", tc.name, err, tc.want)
		}
		for _, v := range tc.env {
			if w := strings.TrimSpace(v); w != "" && strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q shows the value", tc.name, err)
			}
		}
	}
}

// declared is the structural check's pattern (pkg/declaration), which Parse
// must agree with: the names it matches against vars are the names rendered.
var declared = regexp.MustCompile(`\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}`)

func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "{{a}}", "{{{a}}}", "{{ a }}", "x{{a}}{{b}}y", "{{a}", "}}{{", "{{9}}", "{{_}}{{{{x}}}}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		parts := Parse(body)
		// Joining the parts back, each placeholder as written, is the body.
		var b strings.Builder
		var names []string
		for i, p := range parts {
			if (p.Name == "") == (p.Text == "") {
				t.Fatalf("part %d of %q is %#v: want exactly one of Text and Name", i, body, p)
			}
			if i > 0 && p.Name == "" && parts[i-1].Name == "" {
				t.Fatalf("parts %d and %d of %q are both text", i-1, i, body)
			}
			if p.Name != "" {
				b.WriteString("{{" + p.Name + "}}")
				names = append(names, p.Name)
			} else {
				b.WriteString(p.Text)
			}
		}
		if b.String() != body {
			t.Fatalf("parts of %q join to %q", body, b.String())
		}
		var want []string
		for _, m := range declared.FindAllStringSubmatch(body, -1) {
			want = append(want, m[1])
		}
		if !reflect.DeepEqual(names, want) {
			t.Fatalf("Parse(%q) finds %q, the structural check %q", body, names, want)
		}
	})
}

func FuzzRender(f *testing.F) {
	f.Add("a={{a}} b={{b}}", "{{b}}", "x\ny")
	f.Add("{{a}}{{a}}", "", "{{a}}")
	f.Fuzz(func(t *testing.T, body, a, b string) {
		values := map[string]string{"a": a, "b": b}
		// Every placeholder of another name is left out: render the body
		// with only a and b present when it names nothing else.
		for _, n := range Names(body) {
			if n != "a" && n != "b" {
				if _, err := Render(body, values); err == nil {
					t.Fatalf("Render(%q) without %s succeeded", body, n)
				}
				return
			}
		}
		got, err := Render(body, values)
		if err != nil {
			t.Fatal(err)
		}
		// One pass: the output is the body's parts with each placeholder
		// replaced by its value as is, whatever the value holds.
		var want strings.Builder
		for _, p := range Parse(body) {
			if p.Name == "" {
				want.WriteString(p.Text)
			} else {
				want.WriteString(values[p.Name])
			}
		}
		if got != want.String() {
			t.Fatalf("Render(%q) = %q, want %q", body, got, want.String())
		}
		// A body with no placeholder renders as itself.
		if len(Names(body)) == 0 && got != body {
			t.Fatalf("Render(%q) with no placeholder = %q", body, got)
		}
	})
}
