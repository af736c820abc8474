package mask

import (
	"sort"
	"strings"
)

// Masker replaces the forms of a set of secret values. The zero Masker and a
// nil one mask nothing. A Masker is safe for concurrent use.
type Masker struct {
	byFirst [256][]form // forms by their first byte, longest first
	maxLen  int
}

type form struct {
	text        string
	replacement string
	rank        rank
	name        string
}

// New returns a Masker for secrets, a map of variable name to resolved value.
func New(secrets map[string]string) *Masker { return NewMin(secrets, 0) }

// NewMin is New masking no form shorter than least characters: not the value,
// its trimmed self, its \n-decoded self, a line or a credential of it, nor
// any encoding of one of those. zap.lock's config_hash masks with min 8, so
// a short secret doesn't move unrelated values it happens to occur in.
func NewMin(secrets map[string]string, least int) *Masker {
	best := map[string]form{}
	for name, value := range secrets {
		for text, r := range formsMin(value, least) {
			f := form{text: text, replacement: "[MASKED:" + name + "]", rank: r, name: name}
			if old, ok := best[text]; !ok || f.rank < old.rank || f.rank == old.rank && f.name < old.name {
				best[text] = f
			}
		}
	}
	m := &Masker{}
	for _, f := range best {
		m.byFirst[f.text[0]] = append(m.byFirst[f.text[0]], f)
		m.maxLen = max(m.maxLen, len(f.text))
	}
	for _, fs := range m.byFirst {
		sort.Slice(fs, func(i, j int) bool {
			if len(fs[i].text) != len(fs[j].text) {
				return len(fs[i].text) > len(fs[j].text)
			}
			return fs[i].text < fs[j].text
		})
	}
	return m
}

// String returns s with every form of every secret replaced.
func (m *Masker) String(s string) string {
	if m == nil || m.maxLen == 0 {
		return s
	}
	out, _ := m.mask(nil, s, true)
	return string(out)
}

// Bytes returns b with every form of every secret replaced: a new slice,
// or b itself when the Masker has no secret.
func (m *Masker) Bytes(b []byte) []byte {
	if m == nil || m.maxLen == 0 {
		return b
	}
	out, _ := m.mask(nil, string(b), true)
	return out
}

// mask appends s masked to dst. Unless final, it stops at the first position
// whose outcome depends on bytes past the end of s, and reports how much of
// s it consumed.
func (m *Masker) mask(dst []byte, s string, final bool) ([]byte, int) {
	start := 0 // the first byte not yet copied to dst
	i := 0
	for i < len(s) {
		f, ok, undecided := m.matchAt(s[i:], final)
		if undecided {
			break
		}
		if ok {
			dst = append(dst, s[start:i]...)
			dst = append(dst, f.replacement...)
			i += len(f.text)
			start = i
			continue
		}
		i++
	}
	dst = append(dst, s[start:i]...)
	return dst, i
}

// matchAt returns the longest form s begins with. Unless final, it reports
// undecided when s is a proper prefix of a longer form, since more input
// could complete it.
func (m *Masker) matchAt(s string, final bool) (f form, ok, undecided bool) {
	for _, f := range m.byFirst[s[0]] {
		if len(f.text) > len(s) {
			if !final && strings.HasPrefix(f.text, s) {
				return form{}, false, true
			}
			continue
		}
		if strings.HasPrefix(s, f.text) {
			return f, true, false
		}
	}
	return form{}, false, false
}
