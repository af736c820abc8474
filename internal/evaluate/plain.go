package evaluate

import (
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"

	"github.com/dop251/goja"
	"github.com/dop251/goja/unistring"

	"github.com/zap-go/zap/pkg/canon"
)

// The plain data a config hands the builder, converted: string, float64,
// bool, []any and *object. A field given undefined is left out of its
// object; nothing else is dropped.
type object struct {
	keys []string // in the order the config wrote them
	vals []any    // vals[i] is keys[i]'s
	// at is the place of each key, made once there are more than
	// manyKeys to search through.
	at map[string]int
}

// manyKeys is the most keys an object's key is looked for in by a search
// through them rather than by a map.
const manyKeys = 16

// add adds the key k, which o doesn't hold, with the value v.
func (o *object) add(k string, v any) {
	o.keys = append(o.keys, k)
	o.vals = append(o.vals, v)
	if o.at != nil {
		o.at[k] = len(o.keys) - 1
	}
}

// index is the place of key in o.keys, or -1.
func (o *object) index(key string) int {
	if len(o.keys) <= manyKeys {
		for i, k := range o.keys {
			if k == key {
				return i
			}
		}
		return -1
	}
	if o.at == nil {
		o.at = make(map[string]int, len(o.keys))
		for i, k := range o.keys {
			o.at[k] = i
		}
	}
	if i, ok := o.at[key]; ok {
		return i
	}
	return -1
}

// get is the value of key, and whether o holds it.
func (o *object) get(key string) (any, bool) {
	if i := o.index(key); i >= 0 {
		return o.vals[i], true
	}
	return nil, false
}

// has reports whether o holds key.
func (o *object) has(key string) bool { return o.index(key) >= 0 }

// fieldError is a problem with the value at path (dotted keys and [i]
// indexes, "" for the argument itself), worded as every document's reader
// words one.
type fieldError = canon.PathError

func child(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// maxDepth bounds how deep a declared value nests.
const maxDepth = 64

// intrinsics are the built-ins the conversion relies on, captured before any
// of the config's code runs so the config can't replace them.
type intrinsics struct {
	objectProto *goja.Object
	arrayProto  *goja.Object
	descriptor  goja.Callable // Object.getOwnPropertyDescriptor
	// slots reads plain data properties without a descriptor (nil: every
	// property goes through its descriptor).
	slots *slotLayout
}

func captureIntrinsics(rt *goja.Runtime) (*intrinsics, error) {
	obj := rt.Get("Object").ToObject(rt)
	arr := rt.Get("Array").ToObject(rt)
	gopd, ok := goja.AssertFunction(obj.Get("getOwnPropertyDescriptor"))
	if !ok {
		return nil, fmt.Errorf("Object.getOwnPropertyDescriptor is not a function")
	}
	in := &intrinsics{
		objectProto: obj.Get("prototype").ToObject(rt),
		arrayProto:  arr.Get("prototype").ToObject(rt),
		descriptor:  gopd,
	}
	if !descriptorsOnly {
		in.slots = slots()
	}
	return in, nil
}

// descriptorsOnly turns the slots off, for tests that compare the two ways
// of reading a property.
var descriptorsOnly bool

var proxyType = reflect.TypeOf(goja.Proxy{})

// converter turns a goja value into plain data.
type converter struct {
	rt    *goja.Runtime
	in    *intrinsics
	stack []*goja.Object
	paths []string
	// nullOK reports the paths where null is data (a template variable's
	// value); elsewhere null is refused.
	nullOK func(path string) bool
}

// jsonNull is a null where one is data.
type jsonNull struct{}

// absent is the result for undefined.
type absentT struct{}

var absent = absentT{}

func (c *converter) convert(v goja.Value, path string) (any, error) {
	if v == nil || goja.IsUndefined(v) {
		return absent, nil
	}
	if goja.IsNull(v) {
		if c.nullOK != nil && c.nullOK(path) {
			return jsonNull{}, nil
		}
		return nil, &fieldError{Path: path, Msg: "null is not a value a declaration holds: leave the field out (or give undefined)"}
	}
	switch x := v.(type) {
	case *goja.Symbol:
		return nil, &fieldError{Path: path, Msg: "a Symbol is not plain data: write a string"}
	case *goja.Object:
		return c.object(x, path)
	case goja.String:
		return plainString(x, path)
	}
	switch x := v.Export().(type) {
	case bool:
		return x, nil
	case int64:
		return float64(x), nil
	case float64:
		switch {
		case math.IsNaN(x):
			return nil, &fieldError{Path: path, Msg: "NaN is not a number a declaration holds"}
		case math.IsInf(x, 0):
			return nil, &fieldError{Path: path, Msg: "Infinity is not a number a declaration holds"}
		}
		if x == 0 {
			x = 0 // -0 reads as 0
		}
		return x, nil
	case *big.Int:
		return nil, &fieldError{Path: path, Msg: "a BigInt is not plain data: write a number"}
	}
	return nil, &fieldError{Path: path, Msg: fmt.Sprintf("a %s is not plain data", v.ExportType())}
}

// plainString returns s as UTF-8, refusing a lone surrogate, which has no
// UTF-8 form.
func plainString(s goja.String, path string) (string, error) {
	// goja writes a lone surrogate as U+FFFD in UTF-8: a string without one
	// has none.
	if str := s.String(); !strings.Contains(str, "\uFFFD") {
		return str, nil
	}
	n := s.Length()
	for i := 0; i < n; i++ {
		c := s.CharAt(i)
		switch {
		case c < 0xD800 || c > 0xDFFF:
		case c <= 0xDBFF && i+1 < n && s.CharAt(i+1) >= 0xDC00 && s.CharAt(i+1) <= 0xDFFF:
			i++
		default:
			return "", &fieldError{Path: path, Msg: fmt.Sprintf("holds a lone surrogate (\\u%04X at %d), which is not text", c, i)}
		}
	}
	return s.String(), nil
}

// refusals say what a non-plain object is and what to write instead, by its
// class.
var refusals = map[string]string{
	"Date":      "a Date is not plain data: write the date as a string, such as date.toISOString()",
	"Map":       "a Map is not plain data: write a plain object, such as Object.fromEntries(map)",
	"Set":       "a Set is not plain data: write an array, such as [...set]",
	"WeakMap":   "a WeakMap is not plain data: write a plain object",
	"WeakSet":   "a WeakSet is not plain data: write an array",
	"RegExp":    "a RegExp is not plain data: write its source as a string",
	"Promise":   "a Promise is not plain data: await it and pass what it resolves to",
	"Error":     "an Error is not plain data: write its message as a string",
	"String":    "a String object is not plain data: write the string itself",
	"Number":    "a Number object is not plain data: write the number itself",
	"Boolean":   "a Boolean object is not plain data: write true or false",
	"Symbol":    "a Symbol is not plain data: write a string",
	"BigInt":    "a BigInt is not plain data: write a number",
	"Arguments": "an arguments object is not plain data: write an array, such as [...arguments]",
}

func (c *converter) object(o *goja.Object, path string) (any, error) {
	if o.ExportType() == proxyType {
		return nil, &fieldError{Path: path, Msg: "a Proxy is not plain data: pass the object it wraps, or a copy"}
	}
	if _, ok := goja.AssertFunction(o); ok {
		return nil, &fieldError{Path: path, Msg: "a function is not plain data: call it and pass what it returns"}
	}
	for i, s := range c.stack {
		if s == o {
			where := "the whole argument"
			if c.paths[i] != "" {
				where = c.paths[i]
			}
			return nil, &fieldError{Path: path, Msg: fmt.Sprintf("a value that holds itself (a cycle back to %s) is not plain data", where)}
		}
	}
	if len(c.stack) >= maxDepth {
		return nil, &fieldError{Path: path, Msg: fmt.Sprintf("nests more than %d deep", maxDepth)}
	}
	class := o.ClassName()
	proto := o.Prototype()
	switch {
	case class == "Array" && proto == c.in.arrayProto:
		c.push(o, path)
		defer c.pop()
		return c.array(o, path)
	case class == "Object" && (proto == nil || proto == c.in.objectProto):
		c.push(o, path)
		defer c.pop()
		return c.plainObject(o, path)
	}
	if msg, ok := refusals[class]; ok {
		return nil, &fieldError{Path: path, Msg: msg}
	}
	name := c.constructorName(proto)
	if msg, ok := refusals[name]; ok {
		return nil, &fieldError{Path: path, Msg: msg}
	}
	if class == "Array" || strings.HasSuffix(name, "Array") {
		return nil, &fieldError{Path: path, Msg: fmt.Sprintf("an instance of %s is not plain data: write a plain array, such as [...value]", name)}
	}
	if class == "Object" {
		return nil, &fieldError{Path: path, Msg: fmt.Sprintf("an instance of %s is not plain data: write a plain object, such as {...value}", name)}
	}
	return nil, &fieldError{Path: path, Msg: fmt.Sprintf("a %s is not plain data", class)}
}

// constructorName names a prototype's constructor without running the
// config's code: only a data property is read.
func (c *converter) constructorName(proto *goja.Object) string {
	if proto == nil {
		return "an object"
	}
	d, err := c.in.descriptor(goja.Undefined(), proto, c.rt.ToValue("constructor"))
	if err != nil {
		return "a class"
	}
	do, ok := d.(*goja.Object)
	if !ok {
		return "a class"
	}
	ctor, ok := do.Get("value").(*goja.Object)
	if !ok {
		return "a class"
	}
	nd, err := c.in.descriptor(goja.Undefined(), ctor, c.rt.ToValue("name"))
	if err != nil {
		return "a class"
	}
	if ndo, ok := nd.(*goja.Object); ok {
		if s, ok := ndo.Get("value").(goja.String); ok && s.String() != "" {
			return s.String()
		}
	}
	return "a class"
}

func (c *converter) push(o *goja.Object, path string) {
	c.stack = append(c.stack, o)
	c.paths = append(c.paths, path)
}

func (c *converter) pop() {
	c.stack = c.stack[:len(c.stack)-1]
	c.paths = c.paths[:len(c.paths)-1]
}

// own reads the own property key of o through its descriptor, so a getter
// is refused rather than run.
func (c *converter) own(o *goja.Object, key, path string) (goja.Value, error) {
	d, err := c.in.descriptor(goja.Undefined(), o, c.rt.ToValue(key))
	if err != nil {
		return nil, err
	}
	do, ok := d.(*goja.Object)
	if !ok {
		return goja.Undefined(), nil
	}
	if g := do.Get("get"); g != nil && !goja.IsUndefined(g) {
		return nil, &fieldError{Path: path, Msg: "a getter is not plain data: write the value"}
	}
	if s := do.Get("set"); s != nil && !goja.IsUndefined(s) {
		return nil, &fieldError{Path: path, Msg: "a setter is not plain data: write the value"}
	}
	return do.Get("value"), nil
}

func (c *converter) plainObject(o *goja.Object, path string) (any, error) {
	if syms := o.Symbols(); len(syms) > 0 {
		return nil, &fieldError{Path: path, Msg: fmt.Sprintf("a Symbol key (%s) is not plain data: use a string key", syms[0].String())}
	}
	out := &object{}
	if c.in.slots != nil {
		if names, props, ok := c.in.slots.plainProps(o); ok {
			out.keys = make([]string, 0, len(names))
			out.vals = make([]any, 0, len(names))
			if err := c.plainProps(out, names, props, path); err != nil {
				return nil, err
			}
			return out, nil
		}
	}
	var own map[unistring.String]goja.Value
	if c.in.slots != nil {
		own = c.in.slots.objectSlots(o)
	}
	for _, k := range o.Keys() {
		p := child(path, k)
		if k == "$env" || k == "$text" {
			return nil, &fieldError{Path: p, Msg: "the key " + k + " is reserved"}
		}
		var raw goja.Value
		if own != nil {
			raw = c.in.slots.plain(own[unistring.NewFromString(k)])
		}
		if raw == nil {
			var err error
			if raw, err = c.own(o, k, p); err != nil {
				return nil, err
			}
		}
		v, err := c.convert(raw, p)
		if err != nil {
			return nil, err
		}
		if v == absent {
			continue
		}
		out.add(k, v)
	}
	return out, nil
}

// plainProps converts the properties plainProps found into out.
func (c *converter) plainProps(out *object, names []unistring.String, props map[unistring.String]goja.Value, path string) error {
	for _, n := range names {
		k := n.String()
		p := child(path, k)
		if k == "$env" || k == "$text" {
			return &fieldError{Path: p, Msg: "the key " + k + " is reserved"}
		}
		v, err := c.convert(props[n], p)
		if err != nil {
			return err
		}
		if v == absent {
			continue
		}
		out.add(k, v)
	}
	return nil
}

func (c *converter) array(o *goja.Object, path string) (any, error) {
	n := o.Get("length").ToInteger()
	var items []goja.Value
	if c.in.slots != nil {
		items, _ = c.in.slots.arraySlots(o)
	}
	// The length can be anything up to 2^32-1 whatever the array holds: an
	// item missing fails the conversion, so only the items held are room.
	out := make([]any, 0, min(n, int64(len(items))))
	for i := int64(0); i < n; i++ {
		p := path + "[" + strconv.FormatInt(i, 10) + "]"
		var raw goja.Value
		if i < int64(len(items)) {
			raw = c.in.slots.plain(items[i])
		}
		if raw == nil {
			var err error
			if raw, err = c.own(o, strconv.FormatInt(i, 10), p); err != nil {
				return nil, err
			}
		}
		v, err := c.convert(raw, p)
		if err != nil {
			return nil, err
		}
		if v == absent {
			return nil, &fieldError{Path: p, Msg: "an undefined array item (or a hole) is not plain data: leave the item out"}
		}
		out = append(out, v)
	}
	return out, nil
}
