package refdoc

import (
	"regexp"
	"strings"
	"sync"

	"github.com/zap-go/zap/ts"
)

// unions are the types ts/types.ts declares with export type NAME = ...;,
// by name, each on one line without its comments. Among them are the
// unions it writes by hand, the forms a field takes that the schema can't
// spell as one struct (a user's sudo, a firewall's allow rule, an extract,
// ssh_keys): read from types.ts, the one place they are written, so a
// page spells them as a config's editor checks them. (tsgen's
// TestHandWrittenUnions holds the ones whose fields the schema knows to
// it.)
var unions = sync.OnceValue(func() map[string]string {
	src, err := ts.Files.ReadFile("types.ts")
	if err != nil {
		return nil
	}
	return parseUnions(string(src))
})

// parseUnions reads each export type NAME = ...; of src: the text up to
// its ; outside brackets, its comments left out, its spaces joined.
func parseUnions(src string) map[string]string {
	out := map[string]string{}
	for rest := src; ; {
		i := strings.Index(rest, "\nexport type ")
		if i < 0 {
			return out
		}
		rest = rest[i+len("\nexport type "):]
		name, body, ok := strings.Cut(rest, " =")
		if !ok || strings.ContainsAny(name, " \n<") {
			continue
		}
		var b strings.Builder
		depth := 0
	scan:
		for j := 0; j < len(body); j++ {
			switch c := body[j]; {
			case strings.HasPrefix(body[j:], "/*"):
				end := strings.Index(body[j:], "*/")
				if end < 0 {
					break scan
				}
				j += end + 1
			case c == '{' || c == '(' || c == '[':
				depth++
				b.WriteByte(c)
			case c == '}' || c == ')' || c == ']':
				depth--
				b.WriteByte(c)
			case c == ';' && depth == 0:
				break scan
			default:
				b.WriteByte(c)
			}
		}
		out[name] = strings.TrimPrefix(strings.Join(strings.Fields(b.String()), " "), "| ")
	}
}

// typeName is a TypeScript type's name in a field's type, perhaps a list.
var typeName = regexp.MustCompile(`\b[A-Z][A-Za-z0-9]*(\[\])?`)

// spelled is a field's TypeScript type with each name it uses spelled
// out where that spells it whole: an enumeration's values (named, from
// the declaration's lists), or a union types.ts declares whose every name
// spells out in turn. A name standing for interfaces a page lists field by
// field (Content, BuildSource) or for itself (JsonValue) stays a name.
func spelled(t string) string { return spell(t, 0) }

func spell(t string, depth int) string {
	return typeName.ReplaceAllStringFunc(t, func(m string) string {
		name, list := strings.CutSuffix(m, "[]")
		form, ok := formOf(name, depth)
		switch {
		case !ok:
			return m
		case list && strings.Contains(form, " | "):
			return "(" + form + ")[]"
		case list:
			return form + "[]"
		}
		return form
	})
}

// formOf is what name spells out to, if it spells whole.
func formOf(name string, depth int) (string, bool) {
	if vs, ok := named[name]; ok {
		q := make([]string, len(vs))
		for i, v := range vs {
			q[i] = "'" + v + "'"
		}
		return strings.Join(q, " | "), true
	}
	u, ok := unions()[name]
	if !ok || depth > 3 {
		return "", false
	}
	form := spell(u, depth+1)
	for _, n := range typeName.FindAllString(form, -1) {
		if n != "Record" && n != "Partial" {
			return "", false
		}
	}
	return form, true
}
