package evaluate

import (
	"fmt"
	"regexp"
	"strconv"

	"github.com/dop251/goja"
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
