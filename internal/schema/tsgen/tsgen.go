// Package tsgen writes the TypeScript interfaces of ts/types.ts from the
// schema (internal/schema): for each kind's body, the common fields, the
// deploy block and the structs they hold, an interface whose fields are the
// struct's, named, typed and optional as the evaluator reads them, and
// documented by the first paragraph of each Go doc comment, as the schema
// keeps it (internal/schema/docs.json, generated from the comments). A
// struct read by its type field (on=) becomes one interface per type and
// their union. The named string unions (SudoMode, DatabaseAuthMethod, ...)
// are made from the lists pkg/declaration's checks hold a value to.
//
// Generate rewrites those declarations in place in types.ts, leaving every
// other line as written; ts's test fails when the checked-in file differs
// from what Generate makes of it, and `go generate ./ts` rewrites it.
package tsgen

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/zap-go/zap/internal/schema"
	"github.com/zap-go/zap/pkg/declaration"
)

// names are the TypeScript names of structs not named as in Go. A kind's
// body is its Go name and Spec.
var names = map[string]string{
	"Deploy":       "DeploySpec",
	"Health":       "DeployHealth",
	"Source":       "BuildSource",
	"Verification": "SourceVerify",
	"Step":         "PipelineStep",
	"SSHKeys":      "SshKeys",
}

// handWritten are the structs whose TypeScript type types.ts writes by hand,
// a union the schema can't say: a field holding one names it in its ts tag.
var handWritten = map[string]bool{"Target": true, "Extract": true, "SSHKeys": true}

// enums are the string unions types.ts names, each made from the list the
// declaration's check refuses a value outside of, so the two can't drift.
var enums = []struct {
	name   string
	doc    []string
	values []string
}{
	{"PackageManager", []string{
		"A package manager a target may declare. pacman and brew parse but have",
		"no backend yet: their packages detect as undetermined.",
	}, declaration.PackageManagers},
	{"ServiceManager", []string{
		"A service manager a target may declare. launchd parses and has no",
		"backend: its services detect as undetermined.",
	}, declaration.ServiceManagers},
	{"SudoMode", []string{"A sudo mode: with or without the user's password."}, declaration.SudoModes},
	{"DatabaseAuthMethod", []string{
		"A pg_hba.conf authentication method Zap can write on a plain TCP host",
		"line. trust, peer, cert, ldap, radius, sspi and bsd are refused.",
	}, declaration.DatabaseAuthMethods},
	{"TemplateKind", []string{
		"The form a template variable's value is held to where it lands: a DNS",
		"name, a port number, one word, or text safe inside quotes.",
	}, declaration.TemplateKinds},
	{"Policy", []string{"A default firewall policy."}, declaration.Policies},
}

// HandWritten returns the TypeScript names of the structs types.ts writes
// by hand, sorted: the evaluator's tests decode each one's forms.
func HandWritten() []string {
	var out []string
	for n := range handWritten {
		if ts, ok := names[n]; ok {
			n = ts
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// decl is one generated declaration of types.ts.
type decl struct {
	name string
	text string
}

// Generate returns src, the text of types.ts, with each generated
// declaration replaced by what the schema makes of it. A declaration src
// lacks is an error: the file places each one, so a new one is added by
// hand where it belongs (export interface Name {}) and generated after.
func Generate(src []byte) ([]byte, error) {
	decls, err := Decls()
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(src), "\n")
	for _, d := range decls {
		start, end, ok := find(lines, d.name)
		if !ok {
			return nil, fmt.Errorf("types.ts declares no %s: add `export interface %s {}` where it belongs, then generate", d.name, d.name)
		}
		repl := strings.Split(strings.TrimSuffix(d.text, "\n"), "\n")
		lines = append(lines[:start], append(repl, lines[end+1:]...)...)
	}
	return []byte(strings.Join(lines, "\n")), nil
}

// find returns the lines declaring name, its doc comment included.
func find(lines []string, name string) (start, end int, ok bool) {
	at := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "export interface "+name+" ") || strings.HasPrefix(l, "export type "+name+" ") {
			at = i
			break
		}
	}
	if at < 0 {
		return 0, 0, false
	}
	start = at
	if at > 0 && strings.HasSuffix(lines[at-1], "*/") {
		for start = at - 1; start > 0 && !strings.HasPrefix(lines[start], "/**"); start-- {
		}
	}
	end = at
	if strings.HasPrefix(lines[at], "export interface ") {
		for end < len(lines)-1 && lines[end] != "}" && !strings.HasSuffix(lines[end], "{}") {
			end++
		}
	} else {
		for end < len(lines)-1 && !strings.HasSuffix(lines[end], ";") {
			end++
		}
	}
	return start, end, true
}

// Decls returns the declarations the schema makes, in schema.All's order.
func Decls() ([]decl, error) {
	bodies := map[reflect.Type]bool{}
	for _, t := range schema.Bodies() {
		bodies[t] = true
	}
	var out []decl
	for _, s := range schema.All() {
		if handWritten[s.Type.Name()] {
			continue
		}
		g := &gen{s: s, name: tsName(s.Type, bodies)}
		if bodies[s.Type] {
			g.extends = " extends Common"
		}
		if disc := s.Discriminator(); disc != nil {
			out = append(out, g.variants(disc)...)
			continue
		}
		out = append(out, decl{g.name, g.iface(g.name, described(s.Type.Name(), schema.TypeDoc(s.Type)), nil, "")})
	}
	for _, e := range enums {
		var b bytes.Buffer
		comment(&b, "", e.doc)
		fmt.Fprintf(&b, "export type %s = %s;\n", e.name, literals(e.values))
		out = append(out, decl{e.name, b.String()})
	}
	return out, nil
}

func tsName(t reflect.Type, bodies map[reflect.Type]bool) string {
	if n, ok := names[t.Name()]; ok {
		return n
	}
	if bodies[t] {
		return t.Name() + "Spec"
	}
	return t.Name()
}

// gen writes the declarations of one struct.
type gen struct {
	s       *schema.Struct
	name    string
	extends string
}

// variants are the interfaces of a struct read by its type field, one per
// type, each documented by its constant's doc, and their union.
func (g *gen) variants(disc *schema.Field) []decl {
	var out []decl
	var union []string
	for _, v := range disc.Enum {
		name := camel(v) + g.name
		union = append(union, name)
		out = append(out, decl{name, g.iface(name, constDoc(disc.Type, v), disc, v)})
	}
	var b bytes.Buffer
	comment(&b, "", described(g.s.Type.Name(), schema.TypeDoc(g.s.Type)))
	fmt.Fprintf(&b, "export type %s = %s;\n", g.name, strings.Join(union, " | "))
	return append(out, decl{g.name, b.String()})
}

// constDoc is the doc of the constant of type typ and value v, without the
// constant's name Go begins it with ("ContentInline is content ..." is
// "Content ...", "AssertCommand asserts ..." is "Asserts ...").
func constDoc(typ reflect.Type, v string) []string {
	lines := firstParagraph(schema.ConstDoc(typ, v))
	if len(lines) == 0 {
		return nil
	}
	if _, rest, ok := strings.Cut(lines[0], " "); ok && rest != "" {
		rest = strings.TrimPrefix(rest, "is ")
		lines[0] = strings.ToUpper(rest[:1]) + rest[1:]
	}
	return reflow(lines)
}

// width is how long a line of a declaration's doc comment may grow.
const width = 72

// reflow fills lines to width: a doc Go began with a name it no longer does.
func reflow(lines []string) []string {
	var out []string
	line := ""
	for _, w := range strings.Fields(strings.Join(lines, " ")) {
		if line != "" && len(line)+1+len(w) > width {
			out = append(out, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(out, line)
}

// iface writes one interface: the struct's fields, or, for a variant (disc
// set), its type field fixed to v and the fields that type reads.
func (g *gen) iface(name string, doc []string, disc *schema.Field, v string) string {
	var b bytes.Buffer
	comment(&b, "", doc)
	fmt.Fprintf(&b, "export interface %s%s {\n", name, g.extends)
	for _, f := range g.s.Fields {
		if f.TS == "-" {
			continue
		}
		if f == disc {
			fmt.Fprintf(&b, "\ttype: '%s';\n", v)
			continue
		}
		if disc != nil && !f.Applies(v) {
			continue
		}
		comment(&b, "\t", firstParagraph(g.s.FieldDoc(f)))
		opt := "?"
		if f.Required || disc != nil && slices.Contains(f.RequiredOn, v) {
			opt = ""
		}
		fmt.Fprintf(&b, "\t%s%s: %s;\n", f.Name, opt, tsType(f))
	}
	b.WriteString("}\n")
	return b.String()
}

// comment writes a doc comment of lines at indent.
func comment(b *bytes.Buffer, indent string, lines []string) {
	for i, l := range lines {
		switch {
		case i == 0:
			b.WriteString(indent + "/** " + l)
		default:
			b.WriteString(indent + " * " + l)
		}
		if i == len(lines)-1 {
			b.WriteString(" */")
		}
		b.WriteString("\n")
	}
}

// tsType is the TypeScript type of a field: its ts tag, else by its shape.
func tsType(f *schema.Field) string {
	if f.TS != "" {
		return f.TS
	}
	switch f.Shape {
	case schema.List:
		return elemType(f.Elem, f.ElemType) + "[]"
	case schema.Map:
		return "Record<string, " + elemType(f.Elem, f.ElemType) + ">"
	case schema.String:
		if len(f.Enum) > 0 {
			return literals(f.Enum)
		}
	}
	t := f.Type
	if f.Ptr {
		t = t.Elem()
	}
	return elemType(f.Shape, t)
}

// literals is a string union of values: 'a' | 'b'.
func literals(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = "'" + v + "'"
	}
	return strings.Join(q, " | ")
}

func elemType(sh schema.Shape, t reflect.Type) string {
	switch sh {
	case schema.String, schema.Text:
		return "string"
	case schema.Bool:
		return "boolean"
	case schema.Int:
		return "number"
	case schema.Object:
		if n, ok := names[t.Name()]; ok {
			return n
		}
		return t.Name()
	}
	panic(fmt.Sprintf("tsgen: no TypeScript type for %v", t))
}

// camel is a type value as a name: path_exists is PathExists.
func camel(v string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(v, func(r rune) bool { return r == '_' || r == '.' || r == '-' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// Type is a field's TypeScript type, as types.ts declares it: what zap doc
// says a field takes.
func Type(f *schema.Field) string { return tsType(f) }
