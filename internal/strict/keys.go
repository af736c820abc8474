package strict

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/zap-go/zap/pkg/canon"
)

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// exactKeys walks data alongside the Go type it decodes into and refuses an
// object key that isn't exactly a field's JSON name. encoding/json matches
// field names regardless of case, so without this {"EVENT":...} would set the
// event field, and {"ok":1,"OK":2} would slip a second value past
// canon.Check's duplicate check. The walk also gives the unknown field its
// full path, list indices included.
//
// A value that decodes itself (a json.Unmarshaler) checks its own keys, but
// encoding/json passes its error up without saying where the value sits. So
// the walk decodes a FieldDecoder (a Text, a Resource, a Target, ...) below the
// root once here, at its path, and returns its error naming that path.
func exactKeys(raw json.RawMessage, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType) {
		if path == "" {
			return nil // the root: the decoder runs it next
		}
		return decodeAt(raw, t, path)
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		if raw[0] != '{' {
			return nil // a type error, which the decoder names
		}
		members, ok := objectMembers(raw)
		if !ok {
			return nil
		}
		var fields map[string]reflect.Type
		if t.Kind() == reflect.Struct {
			fields = jsonFields(t)
		}
		for _, mem := range members {
			k := string(mem.Key)
			at := k
			if path != "" {
				at = path + "." + k
			}
			elem := t
			if t.Kind() == reflect.Map {
				elem = t.Elem()
			} else {
				ft, ok := fields[k]
				if !ok {
					return &canon.PathError{Path: at, Msg: "unknown field"}
				}
				elem = ft
			}
			if err := exactKeys(mem.Value, elem, at); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		if raw[0] != '[' {
			return nil
		}
		list, ok := canon.Elements(raw)
		if !ok && json.Unmarshal(raw, &list) != nil {
			return nil
		}
		for i, item := range list {
			if err := exactKeys(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// objectMembers is raw's members sorted by key, the order the walk names
// the first unknown one in, each value a slice of raw (canon.MemberList),
// so the walk copies no part of the document: the document once more at
// every level of it, as a map of copied values was. An object that gives
// a key twice (the last is the one decoded) or isn't well-formed goes
// through encoding/json's map; false when it doesn't decode as one.
func objectMembers(raw json.RawMessage) ([]canon.Member, bool) {
	members, ok := canon.MemberList(raw, nil)
	if !ok {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return nil, false
		}
		members = members[:0]
		for k, v := range m {
			members = append(members, canon.Member{Key: []byte(k), Value: v})
		}
	}
	slices.SortFunc(members, func(a, b canon.Member) int { return bytes.Compare(a.Key, b.Key) })
	return members, true
}

// jsonFields maps the JSON names of t's fields to their types, with the
// fields of an untagged embedded struct promoted below t's own.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	var embedded []reflect.Type
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				embedded = append(embedded, ft)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	for _, e := range embedded {
		for k, v := range jsonFields(e) {
			if _, ok := out[k]; !ok {
				out[k] = v
			}
		}
	}
	return out
}

// decodeAt decodes raw into a new t at path when t is a FieldDecoder, for
// the error that names where it sits.
func decodeAt(raw json.RawMessage, t reflect.Type, path string) error {
	x, ok := reflect.New(t).Interface().(FieldDecoder)
	if !ok {
		return nil
	}
	err := x.DecodeField(path, raw)
	var pe *canon.PathError
	if err != nil && !errors.As(err, &pe) {
		err = &canon.PathError{Path: path, Msg: err.Error()}
	}
	return err
}
