package schema

import (
	"reflect"
	"strings"
	"testing"
)

// TestSchemaReads reads every struct a config writes, which panics on a tag
// it can't read, and requires each Instead text to be named by a field.
func TestSchemaReads(t *testing.T) {
	used := map[string]bool{}
	for _, s := range All() {
		if len(s.Fields) == 0 {
			t.Errorf("%v: no fields", s.Type)
		}
		for _, f := range s.Fields {
			used[f.Instead] = true
			if len(f.On) > 0 && s.Discriminator() == nil {
				t.Errorf("%v.%s: on= in a struct with no type field", s.Type, f.GoName)
			}
			if d := s.Discriminator(); d != nil && f != d && len(f.On) == 0 {
				t.Errorf("%v.%s: a struct read by its type reads every other field by it: tag it on=", s.Type, f.GoName)
			}
		}
	}
	// Text the hooks use, by key.
	for _, k := range []string{"profile", "sudo", "varname", "count", "enum"} {
		used[Instead[k]] = true
	}
	for k, v := range Instead {
		if !used[v] {
			t.Errorf("Instead[%q] is named by no field", k)
		}
	}
}

func TestTagErrors(t *testing.T) {
	type noInstead struct {
		A string `json:"a"`
	}
	type badKey struct {
		A string `json:"a" zap:"instead=nosuch"`
	}
	type badOpt struct {
		A string `json:"a" zap:"instead=id,frob"`
	}
	type refuseAlone struct {
		A string `json:"a" zap:"instead=id,refuse=a thing"`
	}
	type noShape struct {
		A float64 `json:"a" zap:"instead=count"`
	}
	for _, c := range []struct {
		t    reflect.Type
		want string
	}{
		{reflect.TypeFor[noInstead](), "says nothing instead"},
		{reflect.TypeFor[badKey](), "no such key"},
		{reflect.TypeFor[badOpt](), "unknown zap tag option"},
		{reflect.TypeFor[refuseAlone](), "refuse= without enum="},
		{reflect.TypeFor[noShape](), "has no shape"},
	} {
		_, err := parse(c.t)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want it to say %q", c.t, err, c.want)
		}
	}
}

func TestWant(t *testing.T) {
	for _, c := range []struct {
		enum []string
		want string
	}{
		{[]string{"remote"}, "'remote'"},
		{[]string{"a", "b"}, "'a' or 'b'"},
		{[]string{"a", "b", "c"}, "'a', 'b' or 'c'"},
	} {
		if got := (&Field{Enum: c.enum}).Want(); got != c.want {
			t.Errorf("Want(%q) = %q, want %q", c.enum, got, c.want)
		}
	}
}
