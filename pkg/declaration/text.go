package declaration

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/zap-go/zap/pkg/canon"
)

// The two noncharacters a reference marker is built from inside the config
// evaluation: RefOpen NAME RefClose. They never appear in a declaration's
// JSON; there a reference is {"$env":"NAME"}.
const (
	RefOpen  = '\uFDD0'
	RefClose = '\uFDD1'
)

// Part is one piece of a Text: literal text, or a reference to the operator
// environment variable named Env.
type Part struct {
	Lit string
	Env string
}

// Text is a string that may hold references (zap.env('NAME')). Its JSON form
// is one of:
//
//	"plain text"                                 no reference
//	{"$env":"NAME"}                              one reference, nothing else
//	{"$text":["/srv/",{"$env":"APP"},"/current"]} text built from references
//
// A $text list has at least two parts and at least one reference, no empty
// string and no two strings side by side, so every Text has exactly one
// spelling. The zero Text is the empty string.
type Text struct {
	parts []Part
}

// Lit returns a Text holding s and no reference.
func Lit(s string) Text {
	if s == "" {
		return Text{}
	}
	return Text{parts: []Part{{Lit: s}}}
}

// Ref returns a Text that is the single reference name.
func Ref(name string) Text { return Text{parts: []Part{{Env: name}}} }

// Concat joins parts into a normalized Text.
func Concat(parts ...Part) Text {
	var t Text
	for _, p := range parts {
		t = t.append(p)
	}
	return t
}

func (t Text) append(p Part) Text {
	if p.Env == "" && p.Lit == "" {
		return t
	}
	n := len(t.parts)
	if p.Env == "" && n > 0 && t.parts[n-1].Env == "" {
		parts := append([]Part(nil), t.parts...)
		parts[n-1].Lit += p.Lit
		return Text{parts: parts}
	}
	return Text{parts: append(append([]Part(nil), t.parts...), p)}
}

// Parts returns the pieces of t in order.
func (t Text) Parts() []Part { return append([]Part(nil), t.parts...) }

// IsZero reports whether t is the empty string.
func (t Text) IsZero() bool { return len(t.parts) == 0 }

// Refs returns the names t references, in order of first use.
func (t Text) Refs() []string {
	var names []string
	seen := map[string]bool{}
	for _, p := range t.parts {
		if p.Env != "" && !seen[p.Env] {
			seen[p.Env] = true
			names = append(names, p.Env)
		}
	}
	return names
}

// HasRefs reports whether t holds a reference.
func (t Text) HasRefs() bool {
	for _, p := range t.parts {
		if p.Env != "" {
			return true
		}
	}
	return false
}

// Plain returns t's text when it holds no reference.
func (t Text) Plain() (string, bool) {
	if t.HasRefs() {
		return "", false
	}
	if len(t.parts) == 0 {
		return "", true
	}
	return t.parts[0].Lit, true
}

// String is the display form: a reference reads {env:NAME}.
func (t Text) String() string {
	var b strings.Builder
	for _, p := range t.parts {
		if p.Env != "" {
			b.WriteString("{env:" + p.Env + "}")
		} else {
			b.WriteString(p.Lit)
		}
	}
	return b.String()
}

// Resolve substitutes each reference with lookup's value. A name lookup
// doesn't know is an error naming it.
func (t Text) Resolve(lookup func(name string) (string, bool)) (string, error) {
	var b strings.Builder
	for _, p := range t.parts {
		if p.Env == "" {
			b.WriteString(p.Lit)
			continue
		}
		v, ok := lookup(p.Env)
		if !ok {
			return "", fmt.Errorf("reference %s is unset", p.Env)
		}
		b.WriteString(v)
	}
	return b.String(), nil
}

// Map returns t with every literal piece passed through f.
func (t Text) Map(f func(string) string) Text {
	var out Text
	for _, p := range t.parts {
		if p.Env == "" {
			p.Lit = f(p.Lit)
		}
		out = out.append(p)
	}
	return out
}

// ValidEnvName reports whether name is an environment variable name: letters,
// digits and _, not starting with a digit.
func ValidEnvName(name string) bool {
	if name == "" {
		return false
	}
	for i, r := range name {
		switch {
		case r == '_', r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

func hasMarker(s string) bool { return strings.ContainsAny(s, markers) }

// markers holds the two marker characters.
const markers = string(RefOpen) + string(RefClose)

// MarshalJSON writes the one spelling of t.
func (t Text) MarshalJSON() ([]byte, error) {
	switch {
	case len(t.parts) == 0:
		return []byte(`""`), nil
	case len(t.parts) == 1 && t.parts[0].Env == "":
		return json.Marshal(t.parts[0].Lit)
	case len(t.parts) == 1:
		return json.Marshal(map[string]string{"$env": t.parts[0].Env})
	}
	list := make([]any, len(t.parts))
	for i, p := range t.parts {
		if p.Env != "" {
			list[i] = map[string]string{"$env": p.Env}
		} else {
			list[i] = p.Lit
		}
	}
	return json.Marshal(map[string]any{"$text": list})
}

// UnmarshalJSON reads the one spelling of a Text and refuses any other.
func (t *Text) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '"' {
		s, ok := canon.Unquote(data)
		if !ok {
			if err := json.Unmarshal(data, &s); err != nil {
				return err
			}
		}
		if hasMarker(s) {
			return errors.New("holds a reference marker character (U+FDD0 or U+FDD1)")
		}
		*t = Lit(s)
		return nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil || obj == nil {
		return errors.New(`want a string, {"$env": NAME} or {"$text": [...]}`)
	}
	if len(obj) != 1 {
		return errors.New(`a reference object has exactly one key, $env or $text`)
	}
	if raw, ok := obj["$env"]; ok {
		name, err := envName(raw)
		if err != nil {
			return err
		}
		*t = Ref(name)
		return nil
	}
	raw, ok := obj["$text"]
	if !ok {
		return errors.New(`a reference object has exactly one key, $env or $text`)
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return errors.New("$text: want a list")
	}
	var out Text
	refs := 0
	for i, item := range list {
		item = bytes.TrimSpace(item)
		if len(item) > 0 && item[0] == '"' {
			var s string
			if err := json.Unmarshal(item, &s); err != nil {
				return fmt.Errorf("$text[%d]: %v", i, err)
			}
			if s == "" {
				return fmt.Errorf("$text[%d]: an empty string is left out", i)
			}
			if hasMarker(s) {
				return fmt.Errorf("$text[%d]: holds a reference marker character (U+FDD0 or U+FDD1)", i)
			}
			if i > 0 && len(out.parts) > 0 && out.parts[len(out.parts)-1].Env == "" {
				return fmt.Errorf("$text[%d]: two strings side by side are one string", i)
			}
			out.parts = append(out.parts, Part{Lit: s})
			continue
		}
		var ref map[string]json.RawMessage
		if err := json.Unmarshal(item, &ref); err != nil || len(ref) != 1 || ref["$env"] == nil {
			return fmt.Errorf(`$text[%d]: want a string or {"$env": NAME}`, i)
		}
		name, err := envName(ref["$env"])
		if err != nil {
			return fmt.Errorf("$text[%d]: %v", i, err)
		}
		out.parts = append(out.parts, Part{Env: name})
		refs++
	}
	if len(out.parts) < 2 || refs == 0 {
		return errors.New(`$text: needs two parts or more and a reference; write a plain string or {"$env": NAME}`)
	}
	*t = out
	return nil
}

func envName(raw json.RawMessage) (string, error) {
	var name string
	if err := json.Unmarshal(raw, &name); err != nil {
		return "", errors.New("$env: want a variable name")
	}
	if !ValidEnvName(name) {
		return "", fmt.Errorf("$env: %q is not an environment variable name (letters, digits and _, not starting with a digit)", name)
	}
	return name, nil
}
