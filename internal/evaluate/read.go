package evaluate

import (
	"fmt"
	"reflect"

	"github.com/zap-go/zap/internal/schema"
	"github.com/zap-go/zap/pkg/declaration"
)

// readStruct reads the object f into the struct v by the struct's schema
// (internal/schema): each field in the order the struct declares it, by its
// shape, or by its hook. A field the struct's type field doesn't select
// (on=) isn't read, so a key written for another type is unknown.
func readStruct(f *fields, v reflect.Value) {
	s := schema.Of(v.Type())
	typ := ""
	disc := s.Discriminator()
	for _, fd := range s.Fields {
		if disc != nil && fd != disc && !fd.Applies(typ) {
			continue
		}
		before := f.d.failures()
		readField(f, fd, v.Field(fd.Index))
		if fd.Refuse == "" {
			continue
		}
		got := v.Field(fd.Index).String()
		switch {
		case got == "" || f.d.failures() != before:
		case inEnum(fd, got):
			typ = got
		default:
			f.d.fail(child(f.path, fd.Name), "%q is not %s (want %s)", got, fd.Refuse, fd.Want())
			if fd == disc {
				return
			}
		}
	}
}

func inEnum(fd *schema.Field, s string) bool {
	for _, e := range fd.Enum {
		if e == s {
			return true
		}
	}
	return false
}

// readField reads the field fd of f into v.
func readField(f *fields, fd *schema.Field, v reflect.Value) {
	key := fd.Name
	if fd.Hook != "" {
		hooks[fd.Hook](f, key, v)
		return
	}
	switch fd.Shape {
	case schema.String:
		if fd.Ptr && !f.o.has(key) && !fd.Required {
			f.ask(key)
			return
		}
		var s string
		if fd.Mode {
			s = f.mode(key)
		} else {
			s = f.str(key, fd.Required, fd.Instead)
		}
		setMaybePtr(v, reflect.ValueOf(s).Convert(elemType(fd.Type)))
	case schema.Text:
		if t, ok := f.text(key, fd.Required); ok || fd.Required {
			setMaybePtr(v, reflect.ValueOf(t))
		}
	case schema.Bool:
		if fd.Ptr {
			v.Set(reflect.ValueOf(f.boolPtr(key, fd.Instead)))
		} else {
			v.SetBool(f.boolean(key, fd.Instead))
		}
	case schema.Int:
		readInt(f, fd, v)
	case schema.List:
		readList(f, fd, v)
	case schema.Map:
		readMap(f, fd, v)
	case schema.Object:
		o := f.object(key, fd.Required)
		if o == nil {
			return
		}
		s := reflect.New(elemType(fd.Type)).Elem()
		readStruct(o, s)
		o.done()
		setMaybePtr(v, s)
	}
}

// elemType is t, or what it points to.
func elemType(t reflect.Type) reflect.Type {
	if t.Kind() == reflect.Pointer {
		return t.Elem()
	}
	return t
}

// setMaybePtr sets v, or a pointer v, to x.
func setMaybePtr(v, x reflect.Value) {
	if v.Kind() == reflect.Pointer {
		p := reflect.New(x.Type())
		p.Elem().Set(x)
		v.Set(p)
		return
	}
	v.Set(x)
}

func readInt(f *fields, fd *schema.Field, v reflect.Value) {
	key := fd.Name
	if fd.Ptr {
		v.Set(reflect.ValueOf(f.intPtr(key, fd.Instead)))
		return
	}
	before := f.d.failures()
	n := f.integer(key, fd.Instead)
	// A port that isn't a whole number is that problem alone, not a 0 too.
	if fd.Port && n == 0 && f.o.has(key) && f.d.failures() == before {
		f.d.fail(child(f.path, key), "a port is 1 to 65535, not 0")
	}
	v.SetInt(int64(n))
}

func readList(f *fields, fd *schema.Field, v reflect.Value) {
	key := fd.Name
	switch fd.Elem {
	case schema.String:
		var list []string
		if fd.Required {
			list = f.reqStrs(key, fd.Instead)
		} else {
			list = f.strs(key, fd.Instead)
		}
		v.Set(reflect.ValueOf(list))
	case schema.Text:
		list := f.texts(key, fd.Required)
		if list == nil && fd.Required {
			list = []declaration.Text{}
		}
		v.Set(reflect.ValueOf(list))
	case schema.Object:
		if fd.Required {
			v.Set(reflect.MakeSlice(fd.Type, 0, 0))
		}
		f.each(key, fd.Required, func(o *fields) {
			s := reflect.New(fd.ElemType).Elem()
			readStruct(o, s)
			v.Set(reflect.Append(v, s))
		})
	default:
		panic(fmt.Sprintf("evaluate: %v.%s: no reader for a list of %v", fd.Type, fd.GoName, fd.ElemType))
	}
}

func readMap(f *fields, fd *schema.Field, v reflect.Value) {
	key := fd.Name
	switch fd.Elem {
	case schema.String:
		// The keys are the config's names, taken as written; the values
		// take no reference.
		o := f.object(key, fd.Required)
		if o == nil {
			return
		}
		m := reflect.MakeMapWithSize(fd.Type, len(o.o.keys))
		for _, k := range o.o.keys {
			m.SetMapIndex(reflect.ValueOf(k), reflect.ValueOf(o.str(k, true, fd.Instead)).Convert(fd.ElemType))
		}
		v.Set(m)
	case schema.Text:
		// The keys take no reference; the values take references.
		if m := f.textMap(key, fd.Required, fd.Instead); m != nil {
			v.Set(reflect.ValueOf(m))
		}
	default:
		panic(fmt.Sprintf("evaluate: %v.%s: no reader for a map of %v", fd.Type, fd.GoName, fd.ElemType))
	}
}
