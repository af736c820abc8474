package render

import (
	"bytes"
	"io"
	"regexp"
	"sync"
)

// The SGR sequences a terminal report is coloured with.
const (
	sgrReset  = "\x1b[0m"
	sgrBold   = "\x1b[1m"
	sgrRed    = "\x1b[31m"
	sgrGreen  = "\x1b[32m"
	sgrYellow = "\x1b[33m"
	sgrCyan   = "\x1b[36m"
	sgrError  = "\x1b[1;31m"
)

// lineLimit is the most of one line a Colour holds back to decide its
// style; a longer line passes on plain.
const lineLimit = 4 << 10

// The lines a terminal shows in colour, by how they begin: a create green,
// an update yellow, a removal and a failure red, a banner (a word in
// capitals and a dash: REFUSED —, LOCK —, NOT OBSERVED —) bold; in a
// content diff under a change (ContentDiff), its headers bold, a hunk's
// line cyan, a line taken out red and one put in green.
var lineStyles = []struct {
	re    *regexp.Regexp
	style string
}{
	{regexp.MustCompile(`^    (---|\+\+\+) `), sgrBold},
	{regexp.MustCompile(`^    @@ -[0-9]`), sgrCyan},
	{regexp.MustCompile(`^    -`), sgrRed},
	{regexp.MustCompile(`^    \+`), sgrGreen},
	{regexp.MustCompile(`^\[\+\] `), sgrGreen},
	{regexp.MustCompile(`^\[~\] `), sgrYellow},
	{regexp.MustCompile(`^\[-\] `), sgrRed},
	{regexp.MustCompile(`^  ok +\S`), sgrGreen},
	{regexp.MustCompile(`^  failed +\S`), sgrRed},
	{regexp.MustCompile(`^      step \d+ failed`), sgrRed},
	{regexp.MustCompile(`^  skipped +\S`), sgrYellow},
	{regexp.MustCompile(`^Applied: .*failed`), sgrRed},
	{regexp.MustCompile(`^error: `), sgrError},
	{regexp.MustCompile(`^[A-Z][A-Z]+( [A-Z]+)? — `), sgrBold},
}

// lineStyle is the SGR sequence a terminal shows line in (without its
// newline), or "" for plain.
func lineStyle(line []byte) string {
	for _, s := range lineStyles {
		if s.re.Match(line) {
			return s.style
		}
	}
	return ""
}

// Colour is a writer that colours the report passing through it, a whole
// line at a time (lineStyle), when on (SetOn); off, it passes bytes on as they come.
// It sits between the masking of an output and the terminal, so masking
// sees the text as it is and colour never splits a masked value. A line is
// held back until its newline (up to lineLimit); Flush writes a partial
// one (a question waiting for its answer) plain.
type Colour struct {
	mu    sync.Mutex
	under io.Writer
	on    bool
	line  []byte
	// long is set while the rest of a line longer than lineLimit passes on.
	long bool
}

// NewColour returns a Colour over w, off.
func NewColour(w io.Writer) *Colour { return &Colour{under: w} }

// SetOn turns colouring on or off; a line held back is flushed first.
func (c *Colour) SetOn(on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.flushLocked()
	c.on = on
}

func (c *Colour) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.on {
		return c.under.Write(p)
	}
	n := len(p)
	var out []byte
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if c.long {
			if i < 0 {
				out = append(out, p...)
				break
			}
			out = append(out, p[:i+1]...)
			p, c.long = p[i+1:], false
			continue
		}
		if i < 0 {
			c.line = append(c.line, p...)
			if len(c.line) > lineLimit {
				out = append(out, c.line...)
				c.line, c.long = c.line[:0], true
			}
			break
		}
		c.line = append(c.line, p[:i]...)
		out = appendStyled(out, c.line)
		c.line, p = c.line[:0], p[i+1:]
	}
	if len(out) > 0 {
		if _, err := c.under.Write(out); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// appendStyled appends line and its newline to out, in its style.
func appendStyled(out, line []byte) []byte {
	style := lineStyle(line)
	if style == "" {
		out = append(out, line...)
		return append(out, '\n')
	}
	out = append(out, style...)
	out = append(out, line...)
	out = append(out, sgrReset...)
	return append(out, '\n')
}

// Flush writes a line held back, plain.
func (c *Colour) Flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.flushLocked()
}

func (c *Colour) flushLocked() {
	if len(c.line) > 0 {
		_, _ = c.under.Write(c.line)
		c.line = c.line[:0]
	}
	c.long = false
}
