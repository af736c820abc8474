package strict

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/zap-go/zap/pkg/canon"
)

var textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()

// Decode decodes data into v refusing unknown fields (a key must match
// a field's JSON name exactly, case included) and trailing data, and rewrites
// encoding/json's errors to name the field's path.
func Decode(data []byte, v any) error { return decode(data, v, false) }

// DecodeChecked is Decode for data canon.Check accepted, which is
// one well-formed JSON value: the validity check Decode makes before
// handing a document that decodes itself its bytes isn't made again.
func DecodeChecked(data []byte, v any) error { return decode(data, v, true) }

func decode(data []byte, v any, checked bool) error {
	// The quick ways, for what they decide; anything else goes the strict
	// way, which decides it and words the error. A list of raw elements
	// has no key to refuse: canon.Elements splits a well-formed one. A
	// value with no object anywhere in its type (a string, a number, a
	// list of strings) has none either: encoding/json's Unmarshal decodes
	// it as the strict decoder would.
	if l, ok := v.(*[]json.RawMessage); ok {
		if e, ok := canon.Elements(data); ok {
			*l = e
			return nil
		}
	} else if s, ok := v.(*string); ok && s != nil {
		if q, ok := canon.Unquote(data); ok {
			*s = q
			return nil
		}
		if json.Unmarshal(data, v) == nil {
			return nil
		}
	} else if quickPlain(data, v) {
		return nil
	} else if t := reflect.TypeOf(v); t != nil && plainType(t) && json.Unmarshal(data, v) == nil {
		return nil
	} else if u, ok := v.(json.Unmarshaler); ok {
		// An object that decodes itself (a document, strictly by its
		// Fields): encoding/json would scan it three times over (read,
		// check, skip) only to hand it the same bytes. One check that
		// data is exactly one well-formed value does what they decide.
		if obj := bytes.TrimSpace(data); len(obj) > 0 && obj[0] == '{' && nonNilPointer(v) && (checked || json.Valid(data)) {
			// obj is well-formed: one that decodes itself knowing so
			// splits it without reading its strings twice.
			var err error
			if w, ok := v.(WellFormedDecoder); ok {
				err = w.DecodeWellFormed("", obj)
			} else {
				err = u.UnmarshalJSON(obj)
			}
			if err != nil {
				return fieldError(err)
			}
			return nil
		}
	}
	if t := reflect.TypeOf(v); t != nil {
		if err := exactKeys(data, t, ""); err != nil {
			return err
		}
	}
	if checked {
		// data is one well-formed value and exactKeys has refused every
		// key no field takes: Unmarshal decodes it where it lies, where a
		// Decoder would first copy the whole document into its buffer.
		if err := json.Unmarshal(data, v); err != nil {
			return fieldError(err)
		}
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fieldError(err)
	}
	if dec.More() {
		return errors.New("data after the document")
	}
	return nil
}

// quickPlain decodes the plain values documents hold most (a string of a
// named type such as a kind, a list of strings) as encoding/json's
// Unmarshal would, without its reflection; false, having set nothing, for
// anything else.
func quickPlain(data []byte, v any) bool {
	if x, ok := v.(*[]string); ok {
		if x == nil {
			return false
		}
		list, ok := canon.Elements(data)
		if !ok {
			return false
		}
		out := make([]string, len(list))
		for i, raw := range list {
			if out[i], ok = canon.Unquote(raw); !ok {
				return false
			}
		}
		*x = out
		return true
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.String || decodesItself(rv.Type().Elem()) {
		return false
	}
	s, ok := canon.Unquote(data)
	if ok {
		rv.Elem().SetString(s)
	}
	return ok
}

// decodesItself reports whether encoding/json hands a value of type t (or
// a pointer to one) its bytes or its text to decode.
func decodesItself(t reflect.Type) bool {
	return t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType) ||
		t.Implements(textUnmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalerType)
}

func nonNilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && !rv.IsNil()
}

func fieldError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "(document)"
		}
		return &canon.PathError{Path: field, Msg: fmt.Sprintf("want %s, not a JSON %s", jsonKind(te.Type), te.Value)}
	}
	var pe *canon.PathError
	if errors.As(err, &pe) {
		return pe
	}
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return &canon.PathError{Msg: "unknown field " + rest}
	}
	return errors.New(strings.TrimPrefix(msg, "json: "))
}

// jsonKind names the JSON a Go type decodes from, for messages: "list", not
// "[]json.RawMessage". Scalars keep the short names encoding/json gives them
// (string, int, bool), which stage messages already print.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "int"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "list"
	case reflect.Map, reflect.Struct:
		return "object"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return t.Kind().String()
}

// plainType reports whether t is a pointer to a value with no object in its
// type and no decoder of its own: a string, bool or number, or a list of
// them.
func plainType(t reflect.Type) bool {
	if t.Kind() != reflect.Pointer {
		return false
	}
	t = t.Elem()
	for {
		if t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType) {
			return false
		}
		switch t.Kind() {
		case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			return true
		case reflect.Slice:
			t = t.Elem()
		default:
			return false
		}
	}
}
