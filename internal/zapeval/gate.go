package zapeval

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/zap-go/zap/internal/resolve"
	"github.com/zap-go/zap/pkg/declaration"
)

// MinGateSecret is the shortest secret value the secret gate looks for: a
// shorter one turns up in ordinary text by chance.
const MinGateSecret = 8

// gateError is a literal that holds a secret's value. Its message names the
// field and the variable and none of the text.
type gateError struct {
	Field, Name string
}

func (e *gateError) Error() string {
	return fmt.Sprintf("%s holds the value of the secret %s written out", e.Field, e.Name)
}

// secretGate refuses a declaration with a string literal holding the whole
// value of a secret it references, where that value resolves from env and
// is MinGateSecret characters or more. It only refuses: what env holds never
// changes the declaration. A machine that lacks the secret passes.
func secretGate(d *declaration.Declaration, env resolve.Env) error {
	type secret struct{ name, value string }
	var secrets []secret
	for _, name := range d.Refs() {
		v, ok := env(name)
		if !ok || utf8.RuneCountInString(v) < MinGateSecret || !resolve.Secret(d, name, v) {
			continue
		}
		secrets = append(secrets, secret{name, v})
	}
	if len(secrets) == 0 {
		return nil
	}
	data, err := d.Encode()
	if err != nil {
		return nil // the declaration's own checks report it
	}
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil
	}
	var found *gateError
	literals(doc, "", func(path, s string) bool {
		for _, sec := range secrets {
			if strings.Contains(s, sec.value) {
				found = &gateError{Field: path, Name: sec.name}
				return false
			}
		}
		return true
	})
	if found != nil {
		return found
	}
	return nil
}

// literals calls f with every string written out in v, object keys
// included, and the path of its field, in document order, until f returns
// false. A reference's name ({"$env": NAME}) isn't a literal. A resource is
// named by its id, as the declaration's own errors name it; a literal inside
// text built around references is named by the field the text is.
func literals(v any, path string, f func(path, s string) bool) bool {
	switch v := v.(type) {
	case string:
		return f(path, v)
	case []any:
		for i, c := range v {
			p := path + "[" + strconv.Itoa(i) + "]"
			if m, ok := c.(map[string]any); ok && path == "resources" {
				if id, ok := m["id"].(string); ok {
					p += " (" + id + ")"
				}
			}
			if !literals(c, p, f) {
				return false
			}
		}
	case map[string]any:
		if _, ok := v["$env"]; ok && len(v) == 1 {
			return true
		}
		if parts, ok := v["$text"].([]any); ok && len(v) == 1 {
			for _, c := range parts {
				if !literals(c, path, f) {
					return false
				}
			}
			return true
		}
		keys := slices.Sorted(maps.Keys(v))
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			if !f(p, k) {
				return false
			}
			if !literals(v[k], p, f) {
				return false
			}
		}
	}
	return true
}
