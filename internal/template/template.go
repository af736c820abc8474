// Package template renders a file's template content (resources.md,
// content: template): a body with {{name}} placeholders and the value of
// each variable.
//
// A placeholder is {{ then a name (letters, digits and _, not starting with
// a digit) then }}, with nothing else between the braces; braces around
// anything else ({{ .Values.port }}) are text. Placeholders are found left
// to right without overlapping, as pkg/declaration's structural check finds
// them, so the names Parse reports are the names that check matched against
// vars one for one.
//
// The body is substituted in one pass: a value is written out and never
// read again, so a value may hold {{x}} as text. A variable's value is its
// string with its references resolved, or, for any other JSON value, its
// compact JSON text. A reference's value can't hold a line break (CR, LF)
// or a NUL, nor a reference delimiter (U+FDD0, U+FDD1); and a variable
// whose kind is declared is held to it once its references resolve. What
// Values refuses names the variable, the reference and the kind, never the
// value.
package template

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/zap-go/zap/pkg/declaration"
)

// Part is one piece of a parsed body: literal text, or the placeholder of
// the variable Name.
type Part struct {
	Text string
	Name string
}

// Parse splits body into its text and placeholders. Adjacent text is one
// part; a placeholder's part has Name set and no Text.
func Parse(body string) []Part {
	var out []Part
	text := func(s string) {
		if s == "" {
			return
		}
		if n := len(out); n > 0 && out[n-1].Name == "" {
			out[n-1].Text += s
			return
		}
		out = append(out, Part{Text: s})
	}
	i := 0 // the start of the text not yet emitted
	from := 0
	for {
		j := strings.Index(body[from:], "{{")
		if j < 0 {
			break
		}
		j += from
		if name, end := placeholder(body, j); end > 0 {
			text(body[i:j])
			out = append(out, Part{Name: name})
			i, from = end, end
			continue
		}
		from = j + 1
	}
	text(body[i:])
	return out
}

// placeholder reads a placeholder at body[at:], which starts with {{. It
// returns the name and the index just past the closing }}, or end 0.
func placeholder(body string, at int) (name string, end int) {
	k := at + 2
	if k >= len(body) || !nameStart(body[k]) {
		return "", 0
	}
	k++
	for k < len(body) && nameByte(body[k]) {
		k++
	}
	if !strings.HasPrefix(body[k:], "}}") {
		return "", 0
	}
	return body[at+2 : k], k + 2
}

func nameStart(c byte) bool {
	return c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

func nameByte(c byte) bool { return nameStart(c) || ('0' <= c && c <= '9') }

// Names returns the distinct placeholder names of body, sorted.
func Names(body string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range Parse(body) {
		if p.Name != "" && !seen[p.Name] {
			seen[p.Name] = true
			out = append(out, p.Name)
		}
	}
	sort.Strings(out)
	return out
}

// Render substitutes each placeholder of body with its value, in one pass.
// A placeholder with no value is an error naming it.
func Render(body string, values map[string]string) (string, error) {
	var b strings.Builder
	b.Grow(len(body))
	for _, p := range Parse(body) {
		if p.Name == "" {
			b.WriteString(p.Text)
			continue
		}
		v, ok := values[p.Name]
		if !ok {
			return "", fmt.Errorf("{{%s}} has no variable in vars", p.Name)
		}
		b.WriteString(v)
	}
	return b.String(), nil
}

// Lookup returns the value a referenced variable resolves to, and whether
// it is known at all.
type Lookup func(name string) (string, bool)

// Error is a variable Values refuses. It names the variable, and the
// reference or kind at fault; it never holds the value.
type Error struct {
	Var string // the template variable
	Ref string // the reference whose value is refused, when one is
	Msg string
}

func (e *Error) Error() string { return "content.vars." + e.Var + ": " + e.Msg }

// Values resolves vars into the text each substitutes: a string's
// references through lookup, any other JSON value as its compact JSON. It
// refuses a reference lookup doesn't know, a reference's value holding a
// line break (CR, LF), a NUL or a reference delimiter, and a value whose
// references resolved to something its kind (kinds, by variable) doesn't
// allow (a value written out was held to its kind when the config was read,
// and is held again here). Variables are checked in name order, so the
// first refusal is always the same one.
func Values(vars map[string]declaration.Var, kinds map[string]string, lookup Lookup) (map[string]string, error) {
	names := slices.Sorted(maps.Keys(vars))
	out := make(map[string]string, len(vars))
	for _, name := range names {
		v := vars[name]
		if v.Text == nil {
			var b bytes.Buffer
			if err := json.Compact(&b, v.JSON); err != nil {
				return nil, &Error{Var: name, Msg: fmt.Sprintf("is not a JSON value: %v", err)}
			}
			out[name] = b.String()
			if kind, ok := kinds[name]; ok && declaration.CheckKind(kind, out[name]) != nil {
				return nil, &Error{Var: name, Msg: fmt.Sprintf("isn't of kind %s", kind)}
			}
			continue
		}
		t := *v.Text
		for _, ref := range t.Refs() {
			val, ok := lookup(ref)
			switch {
			case !ok:
				return nil, &Error{Var: name, Ref: ref, Msg: fmt.Sprintf("references %s, which the plan's references block doesn't record", ref)}
			case strings.ContainsAny(val, "\r\n"):
				return nil, &Error{Var: name, Ref: ref, Msg: fmt.Sprintf("the reference %s resolves to a value holding a line break, which would add a line to the file", ref)}
			case strings.ContainsRune(val, 0):
				return nil, &Error{Var: name, Ref: ref, Msg: fmt.Sprintf("the reference %s resolves to a value holding a NUL", ref)}
			case strings.ContainsAny(val, string([]rune{declaration.RefOpen, declaration.RefClose})):
				return nil, &Error{Var: name, Ref: ref, Msg: fmt.Sprintf("the reference %s resolves to a value holding a reference delimiter (U+FDD0 or U+FDD1)", ref)}
			}
		}
		s, err := t.Resolve(lookup)
		if err != nil {
			return nil, &Error{Var: name, Msg: err.Error()}
		}
		if kind, ok := kinds[name]; ok && declaration.CheckKind(kind, s) != nil {
			if !t.HasRefs() {
				return nil, &Error{Var: name, Msg: fmt.Sprintf("isn't of kind %s", kind)}
			}
			for _, ref := range t.Refs() {
				if v, _ := lookup(ref); v == "" {
					return nil, &Error{Var: name, Ref: ref, Msg: fmt.Sprintf("the reference %s is unset or empty, so the value isn't of kind %s", ref, kind)}
				}
			}
			return nil, &Error{Var: name, Ref: t.Refs()[0], Msg: fmt.Sprintf("resolves (through %s) to a value that isn't of kind %s", strings.Join(t.Refs(), ", "), kind)}
		}
		out[name] = s
	}
	return out, nil
}

// Content resolves vars through lookup and renders body with them.
func Content(body string, vars map[string]declaration.Var, kinds map[string]string, lookup Lookup) (string, error) {
	values, err := Values(vars, kinds, lookup)
	if err != nil {
		return "", err
	}
	return Render(body, values)
}
