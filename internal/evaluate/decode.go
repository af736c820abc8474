package evaluate

import (
	"fmt"
	"math"

	"github.com/zap-go/zap/pkg/declaration"
)

// decoder reads the plain data of one builder call against the fields the
// call takes. It keeps the first problem; the readers return zero values
// after one, so a call reads straight through.
type decoder struct {
	issued map[string]bool // the names zap.env returned markers for
	err    *fieldError
}

func (d *decoder) fail(path, format string, a ...any) {
	if d.err == nil {
		d.err = &fieldError{Path: path, Msg: fmt.Sprintf(format, a...)}
	}
}

func typeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case *object:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// fields is one object being read.
type fields struct {
	d    *decoder
	path string
	o    *object
	used map[string]bool
}

func (d *decoder) fields(v any, path string) *fields {
	o, ok := v.(*object)
	if !ok {
		d.fail(path, "want an object, not %s", typeName(v))
		o = &object{vals: map[string]any{}}
	}
	return &fields{d: d, path: path, o: o, used: make(map[string]bool, len(o.keys))}
}

func (f *fields) get(key string, required bool) (any, bool) {
	v, ok := f.o.vals[key]
	if ok {
		// Only a key the object holds can be unknown (done).
		f.used[key] = true
	} else if required {
		f.d.fail(child(f.path, key), "required field missing")
	}
	return v, ok
}

// noRef checks a string of a field that takes no reference.
func (d *decoder) noRef(path, s, instead string) string {
	if !hasMarker(s) {
		return s
	}
	if _, err := parseText(s, d.issued); err != nil {
		d.fail(path, "%v", err)
	} else {
		d.fail(path, "takes no reference (zap.env): %s", instead)
	}
	return ""
}

func (d *decoder) str(v any, path, instead string) string {
	s, ok := v.(string)
	if !ok {
		d.fail(path, "want a string, not %s", typeName(v))
		return ""
	}
	return d.noRef(path, s, instead)
}

// str reads a string field that takes no reference; instead says what to
// write when the config put one there.
func (f *fields) str(key string, required bool, instead string) string {
	v, ok := f.get(key, required)
	if !ok {
		return ""
	}
	if s, ok := v.(string); ok && !hasMarker(s) {
		return s // what d.str returns, without making the path it won't use
	}
	return f.d.str(v, child(f.path, key), instead)
}

// mode reads an octal mode, which is a string.
func (f *fields) mode(key string) string {
	v, ok := f.get(key, false)
	if !ok {
		return ""
	}
	if _, isNum := v.(float64); isNum {
		f.d.fail(child(f.path, key), "want a string such as '644', not a number")
		return ""
	}
	return f.d.str(v, child(f.path, key), "write the mode out, such as '644'")
}

// text reads a string field that may hold references.
func (f *fields) text(key string, required bool) (declaration.Text, bool) {
	v, ok := f.get(key, required)
	if !ok {
		return declaration.Text{}, false
	}
	if s, ok := v.(string); ok && !hasMarker(s) {
		return declaration.Lit(s), true // what d.text returns, without the path
	}
	return f.d.text(v, child(f.path, key)), true
}

func (d *decoder) text(v any, path string) declaration.Text {
	s, ok := v.(string)
	if !ok {
		d.fail(path, "want a string, not %s", typeName(v))
		return declaration.Text{}
	}
	t, err := parseText(s, d.issued)
	if err != nil {
		d.fail(path, "%v", err)
	}
	return t
}

// list reads the array of strings at key: its items and its path, false
// when it is left out or isn't an array (a failure).
func (f *fields) list(key string, required bool) ([]any, string, bool) {
	v, ok := f.get(key, required)
	if !ok {
		return nil, "", false
	}
	path := child(f.path, key)
	list, ok := v.([]any)
	if !ok {
		f.d.fail(path, "want an array of strings, not %s", typeName(v))
		return nil, "", false
	}
	return list, path, true
}

// strs reads a list of strings that take no reference.
func (f *fields) strs(key, instead string) []string {
	list, path, ok := f.list(key, false)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(list))
	for i, item := range list {
		if s, ok := item.(string); ok && !hasMarker(s) {
			out = append(out, s) // what d.str returns, without the path
			continue
		}
		out = append(out, f.d.str(item, fmt.Sprintf("%s[%d]", path, i), instead))
	}
	return out
}

func (f *fields) boolean(key, instead string) bool {
	v, ok := f.get(key, false)
	if !ok {
		return false
	}
	b, isBool := v.(bool)
	if !isBool {
		if s, isStr := v.(string); isStr && hasMarker(s) {
			f.d.noRef(child(f.path, key), s, instead)
			return false
		}
		f.d.fail(child(f.path, key), "want true or false, not %s", typeName(v))
	}
	return b
}

func (f *fields) integer(key, instead string) int {
	v, ok := f.get(key, false)
	if !ok {
		return 0
	}
	n, isNum := v.(float64)
	if !isNum {
		if s, isStr := v.(string); isStr && hasMarker(s) {
			f.d.noRef(child(f.path, key), s, instead)
			return 0
		}
		f.d.fail(child(f.path, key), "want a whole number, not %s", typeName(v))
		return 0
	}
	if n != math.Trunc(n) || math.Abs(n) > 1<<53 {
		f.d.fail(child(f.path, key), "want a whole number, not %v", n)
		return 0
	}
	return int(n)
}

func (f *fields) object(key string, required bool) *fields {
	v, ok := f.get(key, required)
	if !ok {
		return nil
	}
	return f.d.fields(v, child(f.path, key))
}

// textMap reads an object of Texts keyed by names that take no reference.
func (f *fields) textMap(key, instead string) map[string]declaration.Text {
	o := f.object(key, false)
	if o == nil {
		return nil
	}
	out := map[string]declaration.Text{}
	for _, k := range o.o.keys {
		p := child(o.path, displayMarkers(k))
		o.used[k] = true
		name := o.d.noRef(p, k, instead)
		out[name] = o.d.text(o.o.vals[k], p)
	}
	return out
}

// done reports the first field, as written, that nobody read.
func (f *fields) done() {
	for _, k := range f.o.keys {
		if !f.used[k] {
			f.d.fail(child(f.path, k), "unknown field")
			return
		}
	}
}
