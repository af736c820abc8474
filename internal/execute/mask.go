package execute

import (
	"sort"
	"strings"
)

// Masker takes secret values out of the text an event carries: an error, a
// command's output. It looks for each value as it is, trimmed, and
// single-quoted for a shell as a command carries it, and writes
// [MASKED:NAME] in its place.
type Masker struct {
	pairs []string // old, new, ... longest old first
}

// NewMasker returns a Masker for secrets, by variable name.
func NewMasker(secrets map[string]string) *Masker {
	type form struct{ value, token string }
	var forms []form
	for name, v := range secrets {
		token := "[MASKED:" + name + "]"
		seen := map[string]bool{}
		for _, f := range []string{v, strings.TrimSpace(v), strings.ReplaceAll(v, "'", `'\''`)} {
			if f != "" && !seen[f] {
				seen[f] = true
				forms = append(forms, form{f, token})
			}
		}
	}
	sort.Slice(forms, func(i, j int) bool {
		if len(forms[i].value) != len(forms[j].value) {
			return len(forms[i].value) > len(forms[j].value)
		}
		return forms[i].value < forms[j].value
	})
	m := &Masker{}
	for _, f := range forms {
		m.pairs = append(m.pairs, f.value, f.token)
	}
	return m
}

// Mask returns s with every secret value replaced.
func (m *Masker) Mask(s string) string {
	if m == nil || len(m.pairs) == 0 || s == "" {
		return s
	}
	return strings.NewReplacer(m.pairs...).Replace(s)
}
