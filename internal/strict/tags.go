package strict

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync"
)

// Tagged decodes the fields of the struct v points to from f's object, one
// by one in the order the struct declares them, each under its JSON name: a
// field is required unless its tag says omitempty. It is what a decoder
// written out by hand (Req, Opt, OptNew, ListOf, MapOf) does, read from the
// struct's tags, so a type's field list is written once:
//
//   - a pointer field is set to a new value when present (OptNew), or
//     always when required (ReqNew);
//   - a list of elements that decode themselves (their pointer is a
//     FieldDecoder) is decoded element by element as ListOf does: each
//     error names the element (key[i]), and a required list starts empty,
//     never nil;
//   - a map of such values is decoded member by member as MapOf does;
//   - any other field is decoded as Req or Opt decodes it.
//
// A struct field without a JSON name, or tagged "-", is left as it is. A
// type with a field that needs more (a check between two fields, a field
// that depends on another) decodes itself by hand.
func Tagged(f *Fields, v any) {
	rv := reflect.ValueOf(v).Elem()
	for _, tf := range tagFieldsOf(rv.Type()) {
		fv := rv.Field(tf.index)
		switch tf.how {
		case tagPointer:
			if tf.required || f.Has(tf.key) {
				fv.Set(reflect.New(fv.Type().Elem()))
			}
			tf.decode(f, fv.Interface())
		case tagList:
			decodeList(f, tf, fv)
		case tagMap:
			tf.decode(f, mapDecoder{fv})
		default:
			tf.decode(f, fv.Addr().Interface())
		}
	}
}

// DecodeTagged decodes the object raw into the struct v points to as
// Tagged does, its errors naming path: a FieldDecoder's DecodeField for a
// type whose decoding its tags say in full.
func DecodeTagged(path string, raw json.RawMessage, v any) error {
	f := NewFields(path, raw)
	Tagged(f, v)
	return f.Done()
}

// tagHow is how Tagged decodes a field.
type tagHow uint8

const (
	tagPlain   tagHow = iota // as Req or Opt
	tagPointer               // a new value, as ReqNew or OptNew
	tagList                  // element by element, as ListOf
	tagMap                   // member by member, as MapOf
)

// tagField is one struct field Tagged decodes.
type tagField struct {
	key      string
	index    int
	required bool
	how      tagHow
}

// decode decodes the field's key into v, as Req or Opt.
func (tf tagField) decode(f *Fields, v any) {
	if tf.required {
		f.Req(tf.key, v)
	} else {
		f.Opt(tf.key, v)
	}
}

var (
	fieldDecoderType = reflect.TypeFor[FieldDecoder]()
	tagFieldsCache   sync.Map // reflect.Type -> []tagField
)

// tagFieldsOf returns the fields Tagged decodes in a struct of type t,
// worked out once per type.
func tagFieldsOf(t reflect.Type) []tagField {
	if c, ok := tagFieldsCache.Load(t); ok {
		return c.([]tagField)
	}
	var out []tagField
	for i := range t.NumField() {
		sf := t.Field(i)
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if !sf.IsExported() || name == "" || name == "-" {
			continue
		}
		tf := tagField{key: name, index: i, required: !strings.Contains(","+opts+",", ",omitempty,")}
		switch ft := sf.Type; {
		case ft.Kind() == reflect.Pointer:
			tf.how = tagPointer
		case ft.Kind() == reflect.Slice && reflect.PointerTo(ft.Elem()).Implements(fieldDecoderType):
			tf.how = tagList
		case ft.Kind() == reflect.Map && ft.Key().Kind() == reflect.String && reflect.PointerTo(ft.Elem()).Implements(fieldDecoderType):
			tf.how = tagMap
		}
		out = append(out, tf)
	}
	c, _ := tagFieldsCache.LoadOrStore(t, out)
	return c.([]tagField)
}

// decodeList decodes the list field fv as ListOf does.
func decodeList(f *Fields, tf tagField, fv reflect.Value) {
	if tf.required {
		fv.Set(reflect.MakeSlice(fv.Type(), 0, 0))
	}
	// The list is made as long as the document's once and each element
	// decoded in place, not appended one by one; it is fv once every
	// element decodes (an empty one leaves fv as it is).
	var list reflect.Value
	f.list(tf.key, tf.required, func(n int) {
		list = reflect.MakeSlice(fv.Type(), n, n)
	}, func(i int, path string, raw json.RawMessage) error {
		return list.Index(i).Addr().Interface().(FieldDecoder).DecodeField(path, raw)
	})
	if f.err == nil && list.IsValid() && list.Len() > 0 {
		fv.Set(list)
	}
}

// mapDecoder decodes an object into the map m as MapOf does.
type mapDecoder struct{ m reflect.Value }

func (x mapDecoder) DecodeField(path string, raw json.RawMessage) error {
	f := NewFields(path, raw)
	out := reflect.MakeMap(x.m.Type())
	for _, k := range f.Keys() {
		v := reflect.New(x.m.Type().Elem())
		f.Req(k, v.Interface())
		out.SetMapIndex(reflect.ValueOf(k).Convert(x.m.Type().Key()), v.Elem())
	}
	if err := f.Done(); err != nil {
		return err
	}
	x.m.Set(out)
	return nil
}
