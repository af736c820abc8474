package evaluate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"

	"github.com/zap-go/zap/internal/schema"
	"github.com/zap-go/zap/pkg/declaration"
)

// hooks read the fields whose shape the schema can't describe, by the name
// a field's tag gives (zap:"hook=NAME"). Each sets v, the field, from the
// key of f.
var hooks = map[string]func(f *fields, key string, v reflect.Value){
	"check": hook(readCheck),
	"sudo":  hook(readSudo),
	"allow": hook(readAllow),
	"vars":  hook(readVars),
}

// hook adapts a reader returning the field's value.
func hook[T any](read func(f *fields, key string) T) func(*fields, string, reflect.Value) {
	return func(f *fields, key string, v reflect.Value) { v.Set(reflect.ValueOf(read(f, key))) }
}

// readCheck reads a package's check: a path (beginning /, ~ or $HOME),
// which may hold references, or a command, run as written, which may not.
func readCheck(f *fields, key string) *declaration.Text {
	v, ok := f.get(key, false)
	if !ok {
		return nil
	}
	t := f.d.text(v, child(f.path, key))
	if t.HasRefs() && !pathCheck(t) {
		f.d.fail(child(f.path, key), "takes no reference (zap.env) in a command check: a check beginning /, ~ or $HOME is a path and may hold one; a command is run as written")
	}
	return &t
}

func pathCheck(t declaration.Text) bool {
	p := t.Parts()[0]
	if p.Env != "" {
		return false
	}
	s := p.Lit
	return len(s) > 0 && (s[0] == '/' || s[0] == '~' || (len(s) >= 5 && s[:5] == "$HOME"))
}

// readSudo reads a user's sudo grant: a mode, false, or {mode, commands}.
func readSudo(f *fields, key string) *declaration.Sudo {
	v, ok := f.get(key, false)
	if !ok {
		return nil
	}
	path := child(f.path, key)
	enum := schema.Instead["enum"]
	switch s := v.(type) {
	case bool:
		if s {
			f.d.fail(path, "true grants nothing: write 'nopasswd' or 'password' to grant sudo, or false to remove the grant")
		}
		return &declaration.Sudo{Remove: true}
	case string:
		return &declaration.Sudo{Mode: f.d.str(s, path, enum)}
	case *object:
		o := f.d.fields(s, path)
		sudo := &declaration.Sudo{Mode: o.str("mode", true, enum), Commands: o.reqStrs("commands", schema.Instead["sudo"])}
		o.done()
		return sudo
	}
	f.d.fail(path, "want 'nopasswd', 'password', false or {mode, commands}, not %s", typeName(v))
	return nil
}

// readAllow reads a firewall's allow rules: each a profile's name or
// {port, proto}.
func readAllow(f *fields, key string) []declaration.AllowRule {
	out := []declaration.AllowRule{}
	v, ok := f.get(key, true)
	if !ok {
		return out
	}
	path := child(f.path, key)
	list, isList := v.([]any)
	if !isList {
		f.d.fail(path, "want an array of rules, not %s", typeName(v))
	}
	for i, item := range list {
		at := fmt.Sprintf("%s[%d]", path, i)
		if s, isStr := item.(string); isStr {
			out = append(out, declaration.AllowRule{Profile: f.d.str(s, at, schema.Instead["profile"])})
			continue
		}
		o := f.d.fields(item, at)
		before := f.d.failures()
		rule := declaration.AllowRule{Port: o.integer("port", schema.Instead["count"]), Proto: o.str("proto", false, schema.Instead["enum"])}
		if !o.o.has("port") {
			o.d.fail(child(at, "port"), missing)
		} else if rule.Port == 0 && f.d.failures() == before {
			o.d.fail(child(at, "port"), "a port is 1 to 65535, not 0")
		}
		o.done()
		out = append(out, rule)
	}
	return out
}

// readVars reads a template's variables: each value a string, which may
// hold references, or any other plain value (templateVar).
func readVars(c *fields, key string) map[string]declaration.Var {
	v, ok := c.get(key, false)
	if !ok {
		return nil
	}
	path := child(c.path, key)
	if s, isStr := v.(string); isStr && hasMarker(s) {
		c.d.fail(path, "takes no reference (zap.env) for the whole map: give each variable its value, which may be a reference")
		return nil
	}
	o, ok := c.d.objectAt(v, path)
	if !ok {
		return nil
	}
	out := map[string]declaration.Var{}
	for i, k := range o.o.keys {
		o.used[i] = true
		p := child(path, displayMarkers(k))
		name := o.d.noRef(p, k, schema.Instead["varname"])
		out[name] = c.d.templateVar(o.o.vals[i], p)
	}
	return out
}

// templateVar reads a template variable's value: a string (which may hold
// references), or any other plain value, written as its compact JSON, which
// takes no reference at any depth.
func (d *decoder) templateVar(v any, path string) declaration.Var {
	if _, ok := v.(string); ok {
		t := d.text(v, path)
		return declaration.Var{Text: &t}
	}
	var buf bytes.Buffer
	if p := writeJSON(&buf, v, path); p != "" {
		d.fail(p, "takes no reference (zap.env): a value that isn't a string is substituted as its JSON; pass the referenced value as a string variable of its own")
		return declaration.Var{}
	}
	return declaration.Var{JSON: buf.Bytes()}
}

// writeJSON writes a plain value as compact JSON, keys in the order the
// config wrote them. It returns the path of a string holding a reference
// marker, or "".
func writeJSON(buf *bytes.Buffer, v any, path string) string {
	switch x := v.(type) {
	case nil, jsonNull:
		buf.WriteString("null")
	case bool:
		buf.WriteString(strconv.FormatBool(x))
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e21 {
			buf.WriteString(strconv.FormatFloat(x, 'f', -1, 64))
		} else {
			buf.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
		}
	case string:
		if hasMarker(x) {
			return path
		}
		b, _ := json.Marshal(x)
		buf.Write(b)
	case []any:
		buf.WriteByte('[')
		for i, item := range x {
			if i > 0 {
				buf.WriteByte(',')
			}
			if p := writeJSON(buf, item, fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
		buf.WriteByte(']')
	case *object:
		buf.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			if hasMarker(k) {
				return child(path, displayMarkers(k))
			}
			b, _ := json.Marshal(k)
			buf.Write(b)
			buf.WriteByte(':')
			if p := writeJSON(buf, x.vals[i], child(path, k)); p != "" {
				return p
			}
		}
		buf.WriteByte('}')
	}
	return ""
}
