// Package schema reads the one description of the declaration's fields: the
// Go structs of pkg/declaration (a resource kind's body, the target, the
// deploy block and the structs they hold). A field's JSON tag gives its name
// and whether it is required (no omitempty); its Go type gives its shape (a
// plain string takes no reference, a declaration.Text takes references); its
// doc comment is what the TypeScript types say of it; and its zap tag
// carries what the evaluator needs beside that:
//
//	instead=KEY   what to write instead of a reference, by its key in Instead
//	              (for a list, its items; for a map of strings, its values;
//	              for a map of Texts, its keys)
//	required      required, though omitempty: a field of a variant (on=)
//	mode          an octal mode: a string such as '644', never a number
//	port          a whole number 1 to 65535: 0 is refused
//	enum=a|b      the values it takes, for the TypeScript types
//	refuse=WHAT   the evaluator refuses a value outside enum: "%q is not WHAT"
//	on=a|b        read only when the struct's type field is one of these
//	hook=NAME     read by the evaluator's hook of that name, not by shape
//
// and a ts tag, when there is one, is the field's TypeScript type, where the
// Go type can't say it (a union, a named alias).
//
// The evaluator's reader (internal/evaluate) reads a config's values by this
// description, and ts/types.ts's interfaces are generated from it
// (internal/schema/tsgen), so neither can say something the other refuses.
package schema

import (
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/zap-go/zap/pkg/declaration"
)

// Shape is what a field holds, as the evaluator reads it.
type Shape int

// The shapes.
const (
	String Shape = iota // a string that takes no reference
	Text                // a declaration.Text: a string that takes references
	Bool
	Int
	List   // an array of Elem
	Map    // an object of Elem, keyed by names
	Object // an object read by its own Struct
)

// Field is one field of a struct.
type Field struct {
	Name   string // as the JSON tag spells it
	GoName string
	Index  int
	Type   reflect.Type
	Shape  Shape
	// Ptr is a pointer field: set only when the config wrote it.
	Ptr bool
	// Elem is the shape of a list's items or a map's values, ElemType
	// their type.
	Elem     Shape
	ElemType reflect.Type
	Required bool
	// RequiredOn lists the variants (values of the struct's type) a field
	// the reader takes as optional is required in (required=a|b): the
	// TypeScript marks it so, and the declaration's form check refuses it
	// left out.
	RequiredOn []string
	// Instead is what to write instead of a reference (Instead[key]).
	Instead string
	Mode    bool
	Port    bool
	Enum    []string
	Refuse  string
	On      []string
	Hook    string
	TS      string
}

// Struct is the fields of one struct, in the order it declares them.
type Struct struct {
	Type   reflect.Type
	Fields []*Field
}

var (
	textType = reflect.TypeFor[declaration.Text]()
	cache    sync.Map // reflect.Type -> *Struct
)

// Of returns the description of the struct type t. A tag it can't read is
// a mistake in the declaration package's source, so it panics: every
// struct is read by the evaluator's tests.
func Of(t reflect.Type) *Struct {
	if s, ok := cache.Load(t); ok {
		return s.(*Struct)
	}
	s, err := parse(t)
	if err != nil {
		panic(fmt.Sprintf("schema: %v", err))
	}
	cache.Store(t, s)
	return s
}

func parse(t reflect.Type) (*Struct, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("%v is not a struct", t)
	}
	s := &Struct{Type: t}
	for i := range t.NumField() {
		sf := t.Field(i)
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if !sf.IsExported() || name == "" || name == "-" || sf.Tag.Get("zap") == "-" {
			continue
		}
		f := &Field{Name: name, GoName: sf.Name, Index: i, Type: sf.Type, TS: sf.Tag.Get("ts"),
			Required: !strings.Contains(","+opts+",", ",omitempty,")}
		if err := f.tags(sf.Tag.Get("zap")); err != nil {
			return nil, fmt.Errorf("%v.%s: %w", t, sf.Name, err)
		}
		if err := f.shape(); err != nil {
			return nil, fmt.Errorf("%v.%s: %w", t, sf.Name, err)
		}
		s.Fields = append(s.Fields, f)
	}
	return s, nil
}

// tags reads a field's zap tag.
func (f *Field) tags(tag string) error {
	if tag == "" {
		return nil
	}
	for _, opt := range strings.Split(tag, ",") {
		k, v, _ := strings.Cut(opt, "=")
		switch k {
		case "instead":
			text, ok := Instead[v]
			if !ok {
				return fmt.Errorf("instead=%s: no such key in schema.Instead", v)
			}
			f.Instead = text
		case "required":
			if v != "" {
				f.RequiredOn = strings.Split(v, "|")
			} else {
				f.Required = true
			}
		case "mode":
			f.Mode = true
			f.Instead = Instead["mode"]
		case "port":
			f.Port = true
		case "enum":
			f.Enum = strings.Split(v, "|")
		case "refuse":
			f.Refuse = v
		case "on":
			f.On = strings.Split(v, "|")
		case "hook":
			f.Hook = v
		default:
			return fmt.Errorf("unknown zap tag option %q", opt)
		}
	}
	if f.Refuse != "" && len(f.Enum) == 0 {
		return fmt.Errorf("refuse= without enum=")
	}
	return nil
}

// shape sets the field's shape from its Go type.
func (f *Field) shape() error {
	t := f.Type
	if t.Kind() == reflect.Pointer {
		f.Ptr, t = true, t.Elem()
	}
	if f.Hook != "" {
		return nil
	}
	sh, err := shapeOf(t)
	if err != nil {
		return err
	}
	f.Shape = sh
	switch sh {
	case List, Map:
		if t.Kind() == reflect.Map && t.Key().Kind() != reflect.String {
			return fmt.Errorf("a map's keys are names: want string keys, not %v", t.Key())
		}
		f.ElemType = t.Elem()
		if f.Elem, err = shapeOf(t.Elem()); err != nil {
			return err
		}
		if f.Elem == List || f.Elem == Map {
			return fmt.Errorf("%v: a list or map of lists or maps has no reader", t)
		}
	}
	if f.Instead == "" && f.takesNoRef() {
		return fmt.Errorf("takes no reference and says nothing instead: tag it zap:\"instead=KEY\"")
	}
	return nil
}

// takesNoRef reports whether a reference written in the field (or, for a
// map of Texts, its keys) is refused, and so needs an instead.
func (f *Field) takesNoRef() bool {
	switch f.Shape {
	case String, Bool, Int:
		return true
	case List, Map:
		return f.Elem == String || (f.Shape == Map && f.Elem == Text)
	}
	return false
}

// shapes are the shapes of Go kinds, a Text aside.
var shapes = map[reflect.Kind]Shape{
	reflect.String: String, reflect.Bool: Bool, reflect.Int: Int,
	reflect.Slice: List, reflect.Map: Map, reflect.Struct: Object,
}

func shapeOf(t reflect.Type) (Shape, error) {
	if t == textType {
		return Text, nil
	}
	if sh, ok := shapes[t.Kind()]; ok {
		return sh, nil
	}
	return 0, fmt.Errorf("%v has no shape: use a string, Text, bool, int, list, map or struct, or a hook", t)
}

// Discriminator returns the struct's type field when its other fields are
// read by its value (a field tagged on=), or nil.
func (s *Struct) Discriminator() *Field {
	for _, f := range s.Fields {
		if len(f.On) > 0 {
			for _, d := range s.Fields {
				if d.Name == "type" {
					return d
				}
			}
		}
	}
	return nil
}

// Applies reports whether f is read when the struct's type is typ.
func (f *Field) Applies(typ string) bool {
	if len(f.On) == 0 {
		return true
	}
	for _, on := range f.On {
		if on == typ {
			return true
		}
	}
	return false
}

// Want lists the enum as a message says it: 'a', 'b' or 'c'.
func (f *Field) Want() string {
	q := make([]string, len(f.Enum))
	for i, e := range f.Enum {
		q[i] = "'" + e + "'"
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// Roots are the structs a config writes: the common fields, the target,
// the deploy block and each kind's body, in declaration.Supported's order.
func Roots() []reflect.Type {
	return append([]reflect.Type{
		reflect.TypeFor[declaration.Common](),
		reflect.TypeFor[declaration.Target](),
		reflect.TypeFor[declaration.Deploy](),
	}, Bodies()...)
}

// Bodies are the struct types of the kinds' bodies, in
// declaration.Supported's order.
func Bodies() []reflect.Type {
	var out []reflect.Type
	for _, k := range declaration.Supported {
		r := declaration.Resource{Common: declaration.Common{Type: k}}
		out = append(out, reflect.TypeOf(r.NewBody()).Elem())
	}
	return out
}

// All returns every struct a config writes: the roots and the structs
// their fields hold, each once, a struct before those it holds.
func All() []*Struct {
	seen := map[reflect.Type]bool{}
	var out []*Struct
	var visit func(reflect.Type)
	visit = func(t reflect.Type) {
		if seen[t] {
			return
		}
		seen[t] = true
		s := Of(t)
		out = append(out, s)
		for _, f := range s.Fields {
			if t, ok := f.Holds(); ok {
				visit(t)
			}
		}
	}
	for _, t := range Roots() {
		visit(t)
	}
	return out
}

// Holds returns the struct type the field holds (itself, pointed to, or as
// a list's items or a map's values), read by its own schema.
func (f *Field) Holds() (reflect.Type, bool) {
	switch {
	case f.Hook != "":
	case f.Shape == Object:
		if f.Ptr {
			return f.Type.Elem(), true
		}
		return f.Type, true
	case (f.Shape == List || f.Shape == Map) && f.Elem == Object:
		return f.ElemType, true
	}
	return nil, false
}
