package ts_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dop251/goja"
	"github.com/evanw/esbuild/pkg/api"
)

// module is one of the package's modules, bundled by esbuild and run by
// goja, the interpreter zap-eval runs configs with, so a test calls its
// exported functions as a config would.
type module struct {
	rt      *goja.Runtime
	exports *goja.Object
}

// load bundles the module at rel (relative to this folder) with what it
// imports, as a global the test reads its exports from.
func load(t testing.TB, rel string) *module {
	t.Helper()
	abs, err := filepath.Abs(rel)
	if err != nil {
		t.Fatal(err)
	}
	res := api.Build(api.BuildOptions{
		EntryPoints: []string{abs},
		Bundle:      true,
		Write:       false,
		Format:      api.FormatIIFE,
		GlobalName:  "__mod",
		Platform:    api.PlatformNeutral,
		Target:      api.ES2022,
		Outfile:     "out.js",
		LogLevel:    api.LogLevelSilent,
	})
	if len(res.Errors) > 0 {
		var msgs []string
		for _, m := range res.Errors {
			msgs = append(msgs, m.Text)
		}
		t.Fatalf("bundling %s: %s", rel, strings.Join(msgs, "; "))
	}
	rt := goja.New()
	if _, err := rt.RunString(string(res.OutputFiles[0].Contents)); err != nil {
		t.Fatalf("running %s: %v", rel, err)
	}
	return &module{rt: rt, exports: rt.Get("__mod").ToObject(rt)}
}

// call calls the exported function name with args (Go values, converted
// by goja) and returns its result exported to Go, or the message of what
// it threw.
func (m *module) call(name string, args ...any) (any, error) {
	fn, ok := goja.AssertFunction(m.exports.Get(name))
	if !ok {
		return nil, fmt.Errorf("%s is not an exported function", name)
	}
	vals := make([]goja.Value, len(args))
	for i, a := range args {
		vals[i] = m.rt.ToValue(a)
	}
	v, err := fn(goja.Undefined(), vals...)
	if err != nil {
		if ex, ok := err.(*goja.Exception); ok {
			return nil, fmt.Errorf("%s", ex.Value().String())
		}
		return nil, err
	}
	return v.Export(), nil
}

// str calls name and wants a string back.
func (m *module) str(t testing.TB, name string, args ...any) string {
	t.Helper()
	v, err := m.call(name, args...)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	s, ok := v.(string)
	if !ok {
		t.Fatalf("%s returned %T, want a string", name, v)
	}
	return s
}

// refused calls name and wants it to throw a message holding want.
func (m *module) refused(t testing.TB, want, name string, args ...any) {
	t.Helper()
	v, err := m.call(name, args...)
	if err == nil {
		t.Fatalf("%s(%v) = %v, want it refused with %q", name, args, v, want)
	}
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("%s(%v) refused with %q, want %q in it", name, args, err, want)
	}
}

// ref is the text form of a reference to NAME, as zap.env gives it.
func ref(name string) string { return "\uFDD0" + name + "\uFDD1" }

// constant reads an exported constant.
func (m *module) constant(t testing.TB, name string) any {
	t.Helper()
	v := m.exports.Get(name)
	if v == nil || goja.IsUndefined(v) {
		t.Fatalf("%s is not exported", name)
	}
	return v.Export()
}

// json calls name and gives its result as JSON, for comparing whole
// results.
func (m *module) json(t testing.TB, name string, args ...any) string {
	t.Helper()
	fn, ok := goja.AssertFunction(m.exports.Get(name))
	if !ok {
		t.Fatalf("%s is not an exported function", name)
	}
	vals := make([]goja.Value, len(args))
	for i, a := range args {
		vals[i] = m.rt.ToValue(a)
	}
	v, err := fn(goja.Undefined(), vals...)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	stringify, _ := goja.AssertFunction(m.rt.Get("JSON").ToObject(m.rt).Get("stringify"))
	s, err := stringify(goja.Undefined(), v)
	if err != nil {
		t.Fatal(err)
	}
	return s.String()
}

// js evaluates a JavaScript expression, such as an options object literal,
// for passing to a call.
func (m *module) js(t testing.TB, expr string) goja.Value {
	t.Helper()
	v, err := m.rt.RunString("(" + expr + ")")
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}
