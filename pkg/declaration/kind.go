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

// body is one of Resource's kind pointers, seen as a spec.
type body struct {
	kind Kind
	// get returns r's pointer of this kind as a spec (which holds a nil
	// pointer when r has none), and whether it is set.
	get func(r *Resource) (spec, bool)
	// attach sets r's pointer to a new, empty body of this kind.
	attach func(r *Resource) spec
	// clone sets dst's pointer of this kind to a deep copy of src's, or
	// nil when src has none.
	clone func(dst, src *Resource)
}

func bodyOf[T any, P interface {
	*T
	spec
}](kind Kind, field func(r *Resource) *P) body {
	return body{
		kind: kind,
		get: func(r *Resource) (spec, bool) {
			p := *field(r)
			return p, p != nil
		},
		attach: func(r *Resource) spec {
			p := P(new(T))
			*field(r) = p
			return p
		},
		clone: func(dst, src *Resource) {
			if p := *field(src); p != nil {
				*field(dst) = p.clone().(P)
			}
		},
	}
}

// bodies lists every kind with its pointer in Resource, in the order of
// Resource's fields. Adding a kind adds its file and a line here.
var bodies = []body{
	bodyOf(KindFile, func(r *Resource) **File { return &r.File }),
	bodyOf(KindDirectory, func(r *Resource) **Directory { return &r.Directory }),
	bodyOf(KindLink, func(r *Resource) **Link { return &r.Link }),
	bodyOf(KindScript, func(r *Resource) **Script { return &r.Script }),
	bodyOf(KindPackage, func(r *Resource) **Package { return &r.Package }),
	bodyOf(KindAptRepo, func(r *Resource) **AptRepo { return &r.AptRepo }),
	bodyOf(KindInstaller, func(r *Resource) **Installer { return &r.Installer }),
	bodyOf(KindUser, func(r *Resource) **User { return &r.User }),
	bodyOf(KindService, func(r *Resource) **Service { return &r.Service }),
	bodyOf(KindDatabase, func(r *Resource) **Database { return &r.Database }),
	bodyOf(KindSwap, func(r *Resource) **Swap { return &r.Swap }),
	bodyOf(KindFirewall, func(r *Resource) **Firewall { return &r.Firewall }),
	bodyOf(KindVerify, func(r *Resource) **Verify { return &r.Verify }),
	bodyOf(KindPipeline, func(r *Resource) **Pipeline { return &r.Pipeline }),
	bodyOf(KindBuild, func(r *Resource) **Build { return &r.Build }),
}

// bodyByKind finds a kind's entry in bodies.
var bodyByKind = func() map[Kind]body {
	m := make(map[Kind]body, len(bodies))
	for _, b := range bodies {
		m[b.kind] = b
	}
	return m
}()

// spec returns the first of r's kind pointers that is set, in the order of
// Resource's fields, and how many are set: one in a resource Read decoded.
func (r *Resource) spec() (spec, int) {
	var first spec
	n := 0
	for _, b := range bodies {
		if s, ok := b.get(r); ok {
			if n == 0 {
				first = s
			}
			n++
		}
	}
	return first, n
}

// typed returns r's body of the kind its Type names, and whether it is set.
// It scans bodies, where the common kinds come first: for them, quicker
// than a look-up in bodyByKind (Encode asks for every resource).
func (r *Resource) typed() (spec, bool) {
	for i := range bodies {
		if bodies[i].kind == r.Type {
			return bodies[i].get(r)
		}
	}
	return nil, false
}

// Body returns r's kind fields: the first of its kind pointers that is set,
// nil when none is.
func (r *Resource) Body() Body {
	if s, n := r.spec(); n > 0 {
		return s
	}
	return nil
}

// Clone returns a deep copy of r: it shares no slice, map or pointer with
// r, so either may be changed without the other seeing it.
func (r *Resource) Clone() Resource {
	c := Resource{Common: r.Common}
	c.DependsOn = slices.Clone(r.DependsOn)
	for _, b := range bodies {
		b.clone(&c, r)
	}
	return c
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
	s, set := b.get(&r)
	if err != nil || !set {
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
	if s, n := r.spec(); n > 0 {
		s.texts(out)
	}
	return out
}
