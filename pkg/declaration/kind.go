package declaration

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// Body is a resource's kind fields, the body Resource holds beside the
// common fields: one of *File, *Directory, ... *Build, each in its own
// file here (kind_file.go, kind_swap.go, ...) and listed once, in bodies,
// or the body of a kind kept outside this package (Register). A body is
// decoded by its struct's JSON tags (strict.Tagged): a field is required
// unless tagged omitempty, and the fields are read, and their errors
// reported, in the order the struct declares them.
type Body interface {
	// CheckForm runs the kind's form checks: the field at fault and what is
	// wrong (Fieldf), or nil.
	CheckForm() *Finding
	// Texts adds every field that may hold a reference to out, keyed by
	// its path.
	Texts(out map[string]Text)
	// Clone returns a copy of the receiver (not nil) sharing no slice, map
	// or pointer with it. A Text is immutable, so copies share its parts.
	Clone() Body
}

// spec is a body, as this package's code names it.
type spec = Body

// Finding is a form check's finding: the field at fault and what is
// wrong with it.
type Finding = fieldMsg

// Fieldf is the finding that field is wrong, as format says.
func Fieldf(field, format string, args ...any) *Finding { return fieldf(field, format, args...) }

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

// registered are the kinds Register added, in its order.
var registered []Kind

// Register adds a kind whose body is kept outside this package, in its own
// folder: a kind a test build adds (internal/kinds/motd). Its resources
// decode into a new body of empty's type, a pointer to a struct; Supported
// doesn't list it. Register is called as a package's variables are set,
// before anything is read. A kind already known, or an empty body that
// isn't a pointer to a struct, is a mistake in Zap's code: Register panics.
func Register(kind Kind, empty Body) {
	typ := reflect.TypeOf(empty)
	if _, ok := bodyByKind[kind]; ok || typ.Kind() != reflect.Pointer || typ.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("declaration: can't register %q with a %v body", kind, typ))
	}
	b := body{kind: kind, typ: typ, fresh: func() spec { return reflect.New(typ.Elem()).Interface().(Body) }}
	bodies = append(bodies, b)
	bodyByKind[kind] = b
	registered = append(registered, kind)
}

// Registered lists the kinds Register added, in its order.
func Registered() []Kind { return slices.Clone(registered) }

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
		c.Body = r.Body.Clone()
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
		r.Body.Texts(out)
	}
	return out
}
