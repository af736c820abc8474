package evaluate

import (
	"fmt"
	"math"
	"slices"

	"github.com/zap-go/zap/internal/suggest"
	"github.com/zap-go/zap/pkg/declaration"
)

// decoder reads the plain data of one builder call against the fields the
// call takes. It keeps every problem, the first MaxErrors of them and a
// count of the rest; a reader returns a zero value for a field it fails,
// so a call reads straight through.
type decoder struct {
	issued  map[string]bool // the names zap.env returned markers for
	errs    []*fieldError
	dropped int // problems found past MaxErrors
	// at is where a problem was written when that isn't its path: an
	// unknown field's key, in the object its path names.
	at map[*fieldError]string
}

func (d *decoder) fail(path, format string, a ...any) {
	if len(d.errs) >= MaxErrors {
		d.dropped++
		return
	}
	d.errs = append(d.errs, &fieldError{Path: path, Msg: fmt.Sprintf(format, a...)})
}

// failures is how many problems the decoder has found: a reader compares
// it before and after a read to learn whether that read failed.
func (d *decoder) failures() int { return len(d.errs) + d.dropped }

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

// fields is one object being read. used marks the keys of o read, by
// their place in o.keys. asked lists every key a reader asked for, held or
// not, in the order asked: the names an unknown key is compared with.
type fields struct {
	d     *decoder
	path  string
	o     *object
	used  []bool
	asked []string
	// askedIn holds asked while it is short: a resource's reader asks
	// for about a dozen keys, which asked grown by append reallocated
	// five times.
	askedIn [16]string
}

func (d *decoder) fields(v any, path string) *fields {
	o, ok := v.(*object)
	if !ok {
		d.fail(path, "want an object, not %s", typeName(v))
		o = &object{}
	}
	f := &fields{d: d, path: path, o: o, used: make([]bool, len(o.keys))}
	f.asked = f.askedIn[:0]
	return f
}

// objectAt reads v at path as an object; false, a failure, when it isn't
// one.
func (d *decoder) objectAt(v any, path string) (*fields, bool) {
	before := d.failures()
	f := d.fields(v, path)
	return f, d.failures() == before
}

func (f *fields) get(key string, required bool) (any, bool) {
	f.ask(key)
	i := f.o.index(key)
	var v any
	ok := i >= 0
	if ok {
		// Only a key the object holds can be unknown (done).
		v = f.o.vals[i]
		f.used[i] = true
	} else if required {
		f.d.fail(child(f.path, key), missing)
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
func (f *fields) textMap(key string, required bool, instead string) map[string]declaration.Text {
	o := f.object(key, required)
	if o == nil {
		return nil
	}
	out := map[string]declaration.Text{}
	for i, k := range o.o.keys {
		p := child(o.path, displayMarkers(k))
		o.used[i] = true
		name := o.d.noRef(p, k, instead)
		out[name] = o.d.text(o.o.vals[i], p)
	}
	return out
}

// ask records that a reader asked for key.
func (f *fields) ask(key string) {
	if !slices.Contains(f.asked, key) {
		f.asked = append(f.asked, key)
	}
}

// done reports every field, as written, that nobody read, naming the
// field asked for that it most likely misspells. A required field reported
// missing that an unknown one misspells isn't reported again: the unknown
// one says it all ("contnet" for "content").
//
// An object whose type was refused reports no unknown key: which keys it
// takes depends on its type.
func (f *fields) done() {
	typ := child(f.path, "type")
	if slices.ContainsFunc(f.d.errs, func(e *fieldError) bool { return e.Path == typ }) {
		return
	}
	for i, k := range f.o.keys {
		if f.used[i] {
			continue
		}
		msg := fmt.Sprintf("unknown field %q", displayMarkers(k))
		if near, ok := suggest.Closest(k, f.asked); ok {
			msg += fmt.Sprintf(" (did you mean %q?)", near)
			f.d.forget(child(f.path, near), missing)
		}
		f.d.fail(f.path, "%s", msg)
		if n := len(f.d.errs); n > 0 && f.d.errs[n-1].Msg == msg {
			if f.d.at == nil {
				f.d.at = map[*fieldError]string{}
			}
			f.d.at[f.d.errs[n-1]] = child(f.path, k)
		}
	}
}

// missing is the message of a required field left out.
const missing = "required field missing"

// forget drops the problem msg at path, if it was found.
func (d *decoder) forget(path, msg string) {
	d.errs = slices.DeleteFunc(d.errs, func(e *fieldError) bool { return e.Path == path && e.Msg == msg })
}

// boolPtr reads an optional boolean.
func (f *fields) boolPtr(key, instead string) *bool {
	return optional(f, key, instead, (*fields).boolean)
}

// intPtr reads an optional whole number.
func (f *fields) intPtr(key, instead string) *int {
	return optional(f, key, instead, (*fields).integer)
}

// optional reads key with read when it is set, nil (the key marked read)
// when it isn't.
func optional[T any](f *fields, key, instead string, read func(f *fields, key, instead string) T) *T {
	if !f.o.has(key) {
		f.ask(key)
		return nil
	}
	v := read(f, key, instead)
	return &v
}

// texts reads a list of Texts.
func (f *fields) texts(key string, required bool) []declaration.Text {
	list, path, ok := f.list(key, required)
	if !ok {
		return nil
	}
	out := make([]declaration.Text, 0, len(list))
	for i, item := range list {
		out = append(out, f.d.text(item, fmt.Sprintf("%s[%d]", path, i)))
	}
	return out
}

// reqStrs reads a required list of strings.
func (f *fields) reqStrs(key, instead string) []string {
	if _, ok := f.get(key, true); !ok {
		return nil
	}
	out := f.strs(key, instead)
	if out == nil {
		out = []string{}
	}
	return out
}

// each reads a list of objects.
func (f *fields) each(key string, required bool, read func(*fields)) {
	v, ok := f.get(key, required)
	if !ok {
		return
	}
	path := child(f.path, key)
	list, ok := v.([]any)
	if !ok {
		f.d.fail(path, "want an array of objects, not %s", typeName(v))
		return
	}
	for i, item := range list {
		o := f.d.fields(item, fmt.Sprintf("%s[%d]", path, i))
		read(o)
		o.done()
	}
}
