package evaluate

import (
	"errors"
	"fmt"
	"strings"

	"github.com/zap-go/zap/pkg/declaration"
)

// marker is the string zap.env(name) returns.
func marker(name string) string {
	return string(declaration.RefOpen) + name + string(declaration.RefClose)
}

func hasMarker(s string) bool {
	return strings.ContainsRune(s, declaration.RefOpen) || strings.ContainsRune(s, declaration.RefClose)
}

// errDamaged is a string holding marker characters that aren't a whole
// marker zap.env returned.
var errDamaged = errors.New("holds a damaged reference: a string zap.env returned was sliced, split or had its case changed; only interpolate and concatenate it")

// parseText turns a string holding markers into a Text. Only names zap.env
// issued are references (any valid name when issued is nil); any other use
// of the marker characters is damage.
func parseText(s string, issued map[string]bool) (declaration.Text, error) {
	if !hasMarker(s) {
		return declaration.Lit(s), nil
	}
	var parts []declaration.Part
	for s != "" {
		i := strings.IndexAny(s, string([]rune{declaration.RefOpen, declaration.RefClose}))
		if i < 0 {
			parts = append(parts, declaration.Part{Lit: s})
			break
		}
		if i > 0 {
			parts = append(parts, declaration.Part{Lit: s[:i]})
		}
		rest := s[i:]
		if !strings.HasPrefix(rest, string(declaration.RefOpen)) {
			return declaration.Text{}, errDamaged
		}
		rest = rest[len(string(declaration.RefOpen)):]
		j := strings.IndexRune(rest, declaration.RefClose)
		if j < 0 {
			return declaration.Text{}, errDamaged
		}
		name := rest[:j]
		if !declaration.ValidEnvName(name) || (issued != nil && !issued[name]) {
			return declaration.Text{}, errDamaged
		}
		parts = append(parts, declaration.Part{Env: name})
		s = rest[j+len(string(declaration.RefClose)):]
	}
	return declaration.Concat(parts...), nil
}

// displayMarkers writes the markers in s the way messages show a reference,
// {env:NAME}, and any other marker character as <U+FDD0> or <U+FDD1>.
func displayMarkers(s string) string {
	if !hasMarker(s) {
		return s
	}
	if t, err := parseText(s, nil); err == nil {
		return t.String()
	}
	var b strings.Builder
	for _, r := range s {
		if r == declaration.RefOpen || r == declaration.RefClose {
			fmt.Fprintf(&b, "<U+%04X>", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
