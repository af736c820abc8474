package evaluate

import (
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/go-sourcemap/sourcemap"
)

// Script is a bundled config.
type Script struct {
	// Name is the bundle's file name, as positions in Code are named.
	Name string
	Code string
	// SourceMap maps positions in Code to the config's modules, or is nil.
	SourceMap []byte
}

// positions maps positions in the bundle to the config's modules. The
// interpreter's own mapping is off: it looks a 1-based column up among
// 0-based ones, which lands one token late after a one-character token.
type positions struct {
	name string
	sm   *sourcemap.Consumer
	// prog is the bundle's syntax tree, for where a field was written;
	// calls indexes its calls by where they are.
	prog  *ast.Program
	calls map[site]*ast.CallExpression
	// frames is site's buffer.
	frames []goja.StackFrame
}

func newPositions(s Script) *positions {
	p := &positions{name: s.Name}
	if s.SourceMap != nil {
		p.sm, _ = sourcemap.Parse(s.Name, s.SourceMap)
	}
	return p
}

// at maps a 1-based line and column in the bundle to file:line:col in the
// config, also 1-based.
func (p *positions) at(line, col int) string {
	if p.sm != nil {
		if src, _, l, c, ok := p.sm.Source(line, col-1); ok && src != "" {
			return fmt.Sprintf("%s:%d:%d", src, l, c+1)
		}
	}
	return fmt.Sprintf("%s:%d:%d", p.name, line, col)
}

// source is the module a 1-based line and column in the bundle is in, as
// the source map names it (relative to the project, for the project's own
// modules), or "" when it can't say.
func (p *positions) source(line, col int) string {
	if p.sm != nil {
		if src, _, _, _, ok := p.sm.Source(line, col-1); ok {
			return src
		}
	}
	return ""
}

// caller is the position in the config of the innermost call from the
// config's code.
func (p *positions) caller(rt *goja.Runtime) string {
	return p.first(rt.CaptureCallStack(0, nil))
}

// first is the position in the config of the innermost frame in the
// config's code.
func (p *positions) first(frames []goja.StackFrame) string {
	for _, f := range frames {
		pos := f.Position()
		if pos.Filename == p.name && pos.Line > 0 {
			return p.at(pos.Line, pos.Column)
		}
	}
	return ""
}

// frameRef is a bundle position in a stack trace, with the bytecode offset
// the interpreter adds.
func (p *positions) frameRef() *regexp.Regexp {
	return regexp.MustCompile(regexp.QuoteMeta(p.name) + `:(\d+):(\d+)(?:\(\d+\))?`)
}

// stack rewrites the bundle positions of a stack trace.
func (p *positions) stack(s string) string {
	return p.frameRef().ReplaceAllStringFunc(s, func(m string) string {
		sub := p.frameRef().FindStringSubmatch(m)
		line, _ := strconv.Atoi(sub[1])
		col, _ := strconv.Atoi(sub[2])
		return p.at(line, col)
	})
}

// site is where in the bundle the config made a builder call: the call's
// opening parenthesis, 1-based; zero when it isn't known.
type site struct{ line, col int }

// site is the bundle position of the innermost call from the config's
// code. Every builder call takes one, so it looks at the few innermost
// frames first (the builder's own, then the config's call), in a buffer
// kept for the next, and at the whole stack only when they aren't enough.
func (p *positions) site(rt *goja.Runtime) site {
	const near = 4
	for _, depth := range []int{near, 0} {
		p.frames = rt.CaptureCallStack(depth, p.frames[:0])
		for _, f := range p.frames {
			pos := f.Position()
			if pos.Filename == p.name && pos.Line > 0 {
				return site{pos.Line, pos.Column}
			}
		}
		if len(p.frames) < near {
			break // that was the whole stack
		}
	}
	return site{}
}

// field returns where in the config the value at path (dotted keys and [i]
// indexes) of the call at s was written: the key's position when the
// argument is an object literal written at the call and path leads
// through literals, else the deepest key it does lead to, else the call
// itself. "" when s isn't known.
func (p *positions) field(s site, path string) string {
	if s.line == 0 {
		return ""
	}
	if idx := p.keyAt(s, path); idx > 0 && p.prog != nil {
		pos := p.prog.File.Position(int(idx) - 1)
		return p.at(pos.Line, pos.Column)
	}
	return p.at(s.line, s.col)
}

// keyAt finds the key path leads to in the literal argument of the call at
// s, or the deepest key on the way; 0 for none.
func (p *positions) keyAt(s site, path string) file.Idx {
	call := p.callAt(s)
	if call == nil || len(call.ArgumentList) == 0 || path == "" {
		return 0
	}
	var at file.Idx
	e := call.ArgumentList[0]
	for _, seg := range pathSegments(path) {
		next, idx := step(e, seg)
		if next == nil && idx == 0 {
			return at
		}
		e, at = next, idx
	}
	return at
}

// step goes from the literal e to its member seg: the member's value and
// the position of its key (an array item's own position).
func step(e ast.Expression, seg segment) (ast.Expression, file.Idx) {
	switch x := e.(type) {
	case *ast.ObjectLiteral:
		if seg.index >= 0 {
			return nil, 0
		}
		var val ast.Expression
		var at file.Idx
		// The last of a key written twice is the one that counts.
		for _, prop := range x.Value {
			switch pr := prop.(type) {
			case *ast.PropertyKeyed:
				if k, ok := pr.Key.(*ast.StringLiteral); ok && !pr.Computed && k.Value.String() == seg.key {
					val, at = pr.Value, k.Idx
				}
			case *ast.PropertyShort:
				if pr.Name.Name.String() == seg.key {
					val, at = nil, pr.Name.Idx
				}
			}
		}
		return val, at
	case *ast.ArrayLiteral:
		if seg.index < 0 || seg.index >= len(x.Value) {
			return nil, 0
		}
		for _, item := range x.Value[:seg.index+1] {
			if _, spread := item.(*ast.SpreadElement); spread || item == nil {
				return nil, 0 // the items after it aren't where they are written
			}
		}
		item := x.Value[seg.index]
		return item, item.Idx0()
	}
	return nil, 0
}

// segment is one step of a path: a key, or an index (key "").
type segment struct {
	key   string
	index int
}

// pathSegments splits a path such as content.vars.a or allow[2].port.
func pathSegments(path string) []segment {
	var out []segment
	for _, part := range strings.Split(path, ".") {
		key, rest, _ := strings.Cut(part, "[")
		if key != "" {
			out = append(out, segment{key: key, index: -1})
		}
		for rest != "" {
			n, after, ok := strings.Cut(rest, "]")
			i, err := strconv.Atoi(n)
			if !ok || err != nil {
				return out
			}
			out = append(out, segment{index: i})
			rest = strings.TrimPrefix(after, "[")
		}
	}
	return out
}

// callAt returns the call expression whose opening parenthesis is at s.
// The bundle's calls are indexed once, the first time a problem needs
// one.
func (p *positions) callAt(s site) *ast.CallExpression {
	if p.prog == nil {
		return nil
	}
	if p.calls == nil {
		p.calls = map[site]*ast.CallExpression{}
		walkCalls(reflect.ValueOf(p.prog), func(c *ast.CallExpression) {
			pos := p.prog.File.Position(int(c.LeftParenthesis) - 1)
			p.calls[site{pos.Line, pos.Column}] = c
		})
	}
	return p.calls[s]
}

var fileType = reflect.TypeFor[*file.File]()

// walkCalls calls fn with every call expression in the syntax tree v.
func walkCalls(v reflect.Value, fn func(*ast.CallExpression)) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || v.Type() == fileType {
			return
		}
		if c, ok := v.Interface().(*ast.CallExpression); ok {
			fn(c)
		}
		walkCalls(v.Elem(), fn)
	case reflect.Interface:
		if !v.IsNil() {
			walkCalls(v.Elem(), fn)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			// A scope's DeclarationList repeats bindings its body holds.
			if f := v.Type().Field(i); f.IsExported() && f.Name != "DeclarationList" {
				walkCalls(v.Field(i), fn)
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			walkCalls(v.Index(i), fn)
		}
	}
}
