package declaration

import (
	"regexp"
	"sync"
)

// pattern is a regular expression compiled on its first use. Every stage
// initializes this package each time it starts, and most patterns are for
// kinds or fields a given declaration doesn't have: compiled at
// initialization, the package's patterns cost every process 1-2 ms.
type pattern struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

// patterns is every pattern made, so a test compiles each.
var patterns []*pattern

func newPattern(expr string) *pattern {
	p := &pattern{expr: expr}
	patterns = append(patterns, p)
	return p
}

func (p *pattern) regexp() *regexp.Regexp {
	p.once.Do(func() { p.re = regexp.MustCompile(p.expr) })
	return p.re
}

func (p *pattern) MatchString(s string) bool { return p.regexp().MatchString(s) }

func (p *pattern) FindAllStringSubmatch(s string, n int) [][]string {
	return p.regexp().FindAllStringSubmatch(s, n)
}
