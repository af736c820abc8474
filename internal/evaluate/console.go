package evaluate

import (
	"fmt"
	"io"
	"strings"

	"github.com/dop251/goja"
)

// MaxConsole is how many bytes of console output are written; the rest is
// dropped with a note.
const MaxConsole = 1 << 20

// console writes what the config prints, one line per call, to w.
type console struct {
	rt        *goja.Runtime
	w         io.Writer
	written   int
	truncated bool
	stringify goja.Callable
}

func installConsole(rt *goja.Runtime, w io.Writer) error {
	json := rt.Get("JSON").ToObject(rt)
	stringify, _ := goja.AssertFunction(json.Get("stringify"))
	c := &console{rt: rt, w: w, stringify: stringify}
	obj := rt.NewObject()
	for _, name := range []string{"log", "info", "warn", "error", "debug", "trace", "dir", "table", "group", "groupCollapsed"} {
		obj.Set(name, c.print)
	}
	obj.Set("assert", func(call goja.FunctionCall) goja.Value {
		if call.Argument(0).ToBoolean() {
			return goja.Undefined()
		}
		args := append([]goja.Value{rt.ToValue("Assertion failed:")}, call.Arguments[min(1, len(call.Arguments)):]...)
		return c.print(goja.FunctionCall{Arguments: args})
	})
	// Timing reads the clock: these print nothing.
	for _, name := range []string{"time", "timeLog", "timeEnd", "count", "countReset", "groupEnd"} {
		obj.Set(name, func(goja.FunctionCall) goja.Value { return goja.Undefined() })
	}
	return rt.Set("console", obj)
}

func (c *console) print(call goja.FunctionCall) goja.Value {
	parts := make([]string, len(call.Arguments))
	for i, a := range call.Arguments {
		parts[i] = c.format(a)
	}
	c.write(strings.Join(parts, " ") + "\n")
	return goja.Undefined()
}

func (c *console) format(v goja.Value) string {
	if s, ok := v.(goja.String); ok {
		return s.String()
	}
	if o, ok := v.(*goja.Object); ok {
		if _, isFn := goja.AssertFunction(o); isFn {
			return "[Function]"
		}
		if o.ClassName() == "Error" {
			if st := o.Get("stack"); st != nil && !goja.IsUndefined(st) {
				return st.String()
			}
		}
		if out, err := c.stringify(goja.Undefined(), o); err == nil && !goja.IsUndefined(out) {
			return out.String()
		}
	}
	if _, ok := v.(*goja.Symbol); ok {
		return v.String()
	}
	return v.String()
}

func (c *console) write(s string) {
	if c.truncated {
		return
	}
	if c.written+len(s) > MaxConsole {
		c.truncated = true
		fmt.Fprintf(c.w, "(console output past %d bytes dropped)\n", MaxConsole)
		return
	}
	c.written += len(s)
	io.WriteString(c.w, s)
}
