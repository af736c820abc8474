package tsgen

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/schema"
	"github.com/zap-go/zap/pkg/declaration"
)

// member is one field of a TypeScript object type.
type member struct {
	name, typ, doc string
	optional       bool
}

// objectTypes returns the object types a hand-written declaration of
// types.ts spells: an interface's body, or each { ... } of a type alias's
// union; the alias's other names (an interface it lists) are read in turn.
func objectTypes(t *testing.T, lines []string, name string) [][]member {
	t.Helper()
	start, end, ok := find(lines, name)
	if !ok {
		t.Fatalf("types.ts declares no %s", name)
	}
	for start < end && !strings.HasPrefix(lines[start], "export ") {
		start++
	}
	text := strings.Join(lines[start:end+1], "\n")
	if strings.HasPrefix(text, "export interface ") {
		return [][]member{members(text[strings.Index(text, "{")+1 : strings.LastIndex(text, "}")])}
	}
	_, union, _ := strings.Cut(strings.TrimSuffix(text, ";"), "=")
	var out [][]member
	for _, part := range splitUnion(union) {
		part = strings.TrimSpace(part)
		switch {
		case part == "":
			// The empty part before a union's leading |.
		case strings.HasPrefix(part, "{"):
			out = append(out, members(part[1:len(part)-1]))
		default:
			out = append(out, objectTypes(t, lines, part)...)
		}
	}
	return out
}

// splitUnion splits a union at the | outside braces.
func splitUnion(s string) []string {
	var out []string
	depth, last := 0, 0
	for i, r := range s {
		switch r {
		case '{':
			depth++
		case '}':
			depth--
		case '|':
			if depth == 0 {
				out = append(out, s[last:i])
				last = i + 1
			}
		}
	}
	return append(out, s[last:])
}

// members reads an object type's body: name?: type; each, after its doc.
func members(body string) []member {
	var out []member
	doc := ""
	for s := strings.TrimSpace(body); s != ""; s = strings.TrimSpace(s) {
		if rest, ok := strings.CutPrefix(s, "/**"); ok {
			text, after, _ := strings.Cut(rest, "*/")
			doc, s = text, after
			continue
		}
		decl, after, _ := strings.Cut(s, ";")
		s = after
		name, typ, _ := strings.Cut(decl, ":")
		m := member{name: strings.TrimSpace(name), typ: strings.TrimSpace(typ), doc: normal(strings.ReplaceAll(doc, "\n\t *", " "))}
		m.name, m.optional = strings.CutSuffix(m.name, "?")
		out = append(out, m)
		doc = ""
	}
	return out
}

func normal(s string) string { return strings.Join(strings.Fields(s), " ") }

// handWrittenUnions are the unions types.ts writes by hand with the structs
// they stand for: TestHandWrittenChecked requires every struct of tsgen's
// handWritten here.
var handWrittenUnions = []struct {
	ts  string
	typ reflect.Type
}{
	{"Target", reflect.TypeFor[declaration.Target]()},
	{"Extract", reflect.TypeFor[declaration.Extract]()},
	{"SshKeys", reflect.TypeFor[declaration.SSHKeys]()},
}

// TestHandWrittenUnions holds the unions types.ts writes by hand (the
// target, extract, ssh_keys) to their structs: every member names a field,
// typed as the field is (an enum's values spread over the union's types),
// optional only where the field is, documented as it is; every field is a
// member somewhere, and a field's doc is some member's.
func TestHandWrittenUnions(t *testing.T) {
	lines := strings.Split(typesTS(t), "\n")
	// local is the union's tag: true in LocalTarget, false in RemoteTarget.
	exempt := map[string]bool{"Target.local": true}
	for _, c := range handWrittenUnions {
		s := schema.Of(c.typ)
		fields := map[string]*schema.Field{}
		for _, f := range s.Fields {
			fields[f.Name] = f
		}
		seen := map[string]bool{}
		docSeen := map[string]bool{}
		literals := map[string][]string{}
		for _, obj := range objectTypes(t, lines, c.ts) {
			for _, m := range obj {
				f := fields[m.name]
				if f == nil {
					t.Errorf("%s: %s has no field %q", c.ts, c.typ, m.name)
					continue
				}
				seen[m.name] = true
				key := c.typ.Name() + "." + m.name
				if exempt[key] {
					continue
				}
				goDoc := normal(strings.Join(firstParagraph(s.FieldDoc(f)), " "))
				if m.doc != "" && m.doc != goDoc {
					t.Errorf("%s.%s: doc %q, the struct's %q", c.ts, m.name, m.doc, goDoc)
				}
				docSeen[m.name] = docSeen[m.name] || m.doc == goDoc
				if m.optional && f.Required {
					t.Errorf("%s.%s: optional, but the field is required", c.ts, m.name)
				}
				if len(f.Enum) > 0 {
					literals[m.name] = append(literals[m.name], strings.Split(m.typ, " | ")...)
				} else if want := tsType(f); m.typ != want {
					t.Errorf("%s.%s: type %s, the field's %s", c.ts, m.name, m.typ, want)
				}
			}
		}
		for _, f := range s.Fields {
			switch {
			case !seen[f.Name]:
				t.Errorf("%s: no member for %s's field %s", c.ts, c.typ, f.Name)
			case !exempt[c.typ.Name()+"."+f.Name] && !docSeen[f.Name]:
				t.Errorf("%s: no member of %s carries the field's doc", c.ts, f.Name)
			}
			if len(f.Enum) > 0 {
				got := literals[f.Name]
				sort.Strings(got)
				want := strings.Split(tsType(f), " | ")
				sort.Strings(want)
				if strings.Join(got, " | ") != strings.Join(want, " | ") {
					t.Errorf("%s.%s: the union's values %v, the field's %v", c.ts, f.Name, got, want)
				}
			}
		}
	}
}
