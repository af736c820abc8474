package declaration

import (
	"encoding/json"
	"reflect"
	"testing"
)

var textType = reflect.TypeFor[Text]()

// fill sets every field reachable from v to a value that isn't zero: every
// pointer points, every slice holds an element and every map an entry, so
// a clone that shares any of them is caught by mutate. Text is immutable
// (its methods never change its parts in place), so it is filled whole.
func fill(t *testing.T, v reflect.Value, path string) {
	t.Helper()
	switch {
	case v.Type() == textType:
		v.Set(reflect.ValueOf(Concat(Part{Lit: "a"}, Part{Env: "B"})))
		return
	case v.Type() == reflect.TypeFor[json.RawMessage]():
		v.SetBytes([]byte(`"raw"`))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("s")
	case reflect.Int:
		v.SetInt(1)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(t, v.Elem(), path+".*")
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range v.Len() {
			fill(t, v.Index(i), path+"[]")
		}
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for _, k := range []string{"k1", "k2"} {
			e := reflect.New(v.Type().Elem()).Elem()
			fill(t, e, path+"."+k)
			m.SetMapIndex(reflect.ValueOf(k).Convert(v.Type().Key()), e)
		}
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() {
				t.Fatalf("%s.%s: an unexported field fill can't reach: teach fill and mutate its type", path, f.Name)
			}
			fill(t, v.Field(i), path+"."+f.Name)
		}
	default:
		t.Fatalf("%s: fill has no case for a %s: teach fill and mutate it", path, v.Kind())
	}
}

// mutate changes, in place, every value reachable from v that fill set: it
// writes through every pointer, into every slice element and every map
// entry, and adds a map entry. A Text, immutable, is replaced whole.
func mutate(v reflect.Value) {
	if v.Type() == textType {
		v.Set(reflect.ValueOf(Lit("changed")))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(v.String() + "!")
	case reflect.Int:
		v.SetInt(v.Int() + 1)
	case reflect.Uint8:
		v.SetUint(v.Uint() + 1)
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Pointer:
		if !v.IsNil() {
			mutate(v.Elem())
		}
	case reflect.Slice:
		for i := range v.Len() {
			mutate(v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		iter := v.MapRange()
		var keys []reflect.Value
		for iter.Next() {
			keys = append(keys, iter.Key())
		}
		for _, k := range keys {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			mutate(e)
			v.SetMapIndex(k, e)
		}
		v.SetMapIndex(reflect.ValueOf("added").Convert(v.Type().Key()), reflect.New(v.Type().Elem()).Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			mutate(v.Field(i))
		}
	}
}

// filled returns a resource of kind b whose common fields and kind body
// are filled.
func filled(t *testing.T, b body) Resource {
	t.Helper()
	r := Resource{Common: Common{ID: "r", Type: b.kind, DependsOn: []string{"a", "b"}}}
	s := r.NewBody()
	fill(t, reflect.ValueOf(s).Elem(), string(b.kind))
	return r
}

func TestCloneSharesNothing(t *testing.T) {
	for _, b := range bodies {
		t.Run(string(b.kind), func(t *testing.T) {
			orig := filled(t, b)
			c := orig.Clone()
			if !reflect.DeepEqual(c, orig) {
				t.Fatalf("clone differs from the original:\n got %+v\nwant %+v", c, orig)
			}
			mutate(reflect.ValueOf(&c).Elem())
			if reflect.DeepEqual(c, orig) {
				t.Fatal("mutate changed nothing in the clone")
			}
			if want := filled(t, b); !reflect.DeepEqual(orig, want) {
				t.Fatalf("changing the clone changed the original:\n got %+v\nwant %+v", orig, want)
			}
			if got := orig.Body; got == nil || reflect.TypeOf(got) != b.typ {
				t.Fatalf("Body = %T, want the %s body", got, b.kind)
			}
		})
	}
}

func TestCloneKeepsNil(t *testing.T) {
	for _, b := range bodies {
		r := Resource{Common: Common{ID: "r", Type: b.kind}}
		r.NewBody()
		if c := r.Clone(); !reflect.DeepEqual(c, r) {
			t.Errorf("%s: clone of an empty body is %+v, want %+v", b.kind, c, r)
		}
	}
	var r Resource
	if c := r.Clone(); !reflect.DeepEqual(c, r) || r.Body != nil {
		t.Errorf("clone of the zero resource is %+v (body %v), want it zero with no body", c, r.Body)
	}
}
