package declaration

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// spec is one kind's body: the fields a resource of that kind takes beside
// the common ones. Each kind's type and its form checks sit in its own file
// (kind_file.go, kind_swap.go, ...), and the kinds are listed once, in
// bodies. A body is decoded by its struct's JSON tags (strict.Tagged): a
// field is required unless tagged omitempty, and the fields are read, and
// their errors reported, in the order the struct declares them.
type spec interface {
	// check runs the kind's form checks, naming the field at fault.
	check() *fieldMsg
	// texts adds every field that may hold a reference to out, keyed by
	// its path.
	texts(out map[string]Text)
	// clone returns a copy of the receiver (not nil) sharing no slice, map
	// or pointer with it. A Text is immutable, so copies share its parts.
	clone() spec
}

// Body is a resource's kind fields: one of *File, *Directory, ... *Build,
// the pointer Resource holds for its kind.
type Body interface {
	spec
}

// body is one kind's entry in bodies: its type and how to make an empty
// body of it.
type body struct {
	kind Kind
	typ  reflect.Type
	// fresh returns a new, empty body of the kind.
	fresh func() spec
}

func bodyOf[T any, P interface {
	*T
	spec
}](kind Kind) body {
	return body{kind: kind, typ: reflect.TypeFor[P](), fresh: func() spec { return P(new(T)) }}
}

// bodies lists every kind with its body's type. Adding a kind adds its file
// and a line here.
var bodies = []body{
	bodyOf[File](KindFile),
	bodyOf[Directory](KindDirectory),
	bodyOf[Link](KindLink),
	bodyOf[Script](KindScript),
	bodyOf[Package](KindPackage),
	bodyOf[AptRepo](KindAptRepo),
	bodyOf[Installer](KindInstaller),
	bodyOf[User](KindUser),
	bodyOf[Service](KindService),
	bodyOf[Database](KindDatabase),
	bodyOf[Swap](KindSwap),
	bodyOf[Firewall](KindFirewall),
	bodyOf[Verify](KindVerify),
	bodyOf[Pipeline](KindPipeline),
	bodyOf[Build](KindBuild),
}

// bodyByKind finds a kind's entry in bodies.
var bodyByKind = func() map[Kind]body {
	m := make(map[Kind]body, len(bodies))
	for _, b := range bodies {
		m[b.kind] = b
	}
	return m
}()

// BodyOf returns r's body as a T (a *File, ...), or T's zero value (a nil
// pointer) when r's body is none or another kind's.
func BodyOf[T Body](r *Resource) T {
	b, _ := r.Body.(T)
	return b
}

// NewBody sets r's body to a new, empty body of the kind r.Type names and
// returns it; nil (and r's body left as it was) when Type names no kind.
func (r *Resource) NewBody() Body {
	b, ok := bodyByKind[r.Type]
	if !ok {
		return nil
	}
	r.Body = b.fresh()
	return r.Body
}

// typed returns r's body when it is of the kind its Type names, and whether
// it is. It scans bodies, where the common kinds come first: for them,
// quicker than a look-up in bodyByKind (Encode asks for every resource).
func (r *Resource) typed() (spec, bool) {
	if r.Body == nil {
		return nil, false
	}
	for i := range bodies {
		if bodies[i].kind == r.Type {
			return r.Body, reflect.TypeOf(r.Body) == bodies[i].typ
		}
	}
	return nil, false
}

// Clone returns a deep copy of r: it shares no slice, map or pointer with
// r, so either may be changed without the other seeing it.
func (r *Resource) Clone() Resource {
	c := Resource{Common: r.Common}
	c.DependsOn = slices.Clone(r.DependsOn)
	if r.Body != nil && !isNilBody(r.Body) {
		c.Body = r.Body.clone()
	}
	return c
}

// isNilBody says whether b holds a nil pointer.
func isNilBody(b Body) bool {
	v := reflect.ValueOf(b)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// clonePtr returns a pointer to a copy of *p, or nil.
func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	c := *p
	return &c
}

// cloneEach returns a copy of s with each element cloned, or nil for nil.
func cloneEach[T any](s []T, clone func(T) T) []T {
	if s == nil {
		return nil
	}
	c := make([]T, len(s))
	for i, v := range s {
		c[i] = clone(v)
	}
	return c
}

// emptyRequired returns v, a pointer to a struct, to be written with each
// required list or map (its JSON tag has no omitempty: Read refuses it left
// out, or null) that is nil written empty: v itself when none is, else a
// copy. It looks into the structs v's fields hold, and those they point to,
// unless they write themselves (a json.Marshaler).
func emptyRequired(v any) any {
	if c, ok := withEmptyRequired(reflect.ValueOf(v).Elem()); ok {
		return c.Addr().Interface()
	}
	return v
}

// withEmptyRequired returns a copy of the struct v with its nil required
// lists and maps made empty, and true, when it holds one.
func withEmptyRequired(v reflect.Value) (reflect.Value, bool) {
	var c reflect.Value
	set := func(i int, x reflect.Value) {
		if !c.IsValid() {
			c = reflect.New(v.Type()).Elem()
			c.Set(v)
		}
		c.Field(i).Set(x)
	}
	for i := range v.NumField() {
		sf, fv := v.Type().Field(i), v.Field(i)
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if !sf.IsExported() || name == "" || name == "-" || sf.Type.Implements(marshalerType) {
			continue
		}
		switch sf.Type.Kind() {
		case reflect.Slice, reflect.Map:
			if fv.IsNil() && !strings.Contains(","+opts+",", ",omitempty,") {
				if sf.Type.Kind() == reflect.Slice {
					set(i, reflect.MakeSlice(sf.Type, 0, 0))
				} else {
					set(i, reflect.MakeMap(sf.Type))
				}
			}
		case reflect.Struct:
			if x, ok := withEmptyRequired(fv); ok {
				set(i, x)
			}
		case reflect.Pointer:
			if !fv.IsNil() && sf.Type.Elem().Kind() == reflect.Struct && !sf.Type.Elem().Implements(marshalerType) {
				if x, ok := withEmptyRequired(fv.Elem()); ok {
					set(i, x.Addr())
				}
			}
		}
	}
	return c, c.IsValid()
}

var marshalerType = reflect.TypeFor[json.Marshaler]()

// MarshalJSON writes the resource's flat object: the common fields and
// those of the kind Type names, side by side, as encoding/json would write
// a struct embedding Common and the kind's pointer.
func (r Resource) MarshalJSON() ([]byte, error) {
	b, ok := bodyByKind[r.Type]
	if !ok {
		return nil, fmt.Errorf("resource %q: unknown type %q", r.ID, r.Type)
	}
	common, err := json.Marshal(r.Common)
	s, set := r.typed()
	if err != nil || !set || isNilBody(s) || reflect.TypeOf(s) != b.typ {
		return common, err
	}
	fields, err := json.Marshal(emptyRequired(s))
	if err != nil || string(fields) == "{}" {
		return common, err
	}
	return append(append(common[:len(common)-1], ','), fields[1:]...), nil
}

// Texts returns every field of r that may hold a reference, keyed by the
// field's path (env values as env.NAME, list items as name[i]). Every other
// field takes no reference: its Go type is a plain string.
func (r *Resource) Texts() map[string]Text {
	out := map[string]Text{}
	if r.Body != nil && !isNilBody(r.Body) {
		r.Body.texts(out)
	}
	return out
}
