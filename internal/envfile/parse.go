package envfile

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Var is one assignment of an env file.
type Var struct {
	Name  string
	Value string
	Line  int // 1-based line of the assignment
}

// Error is a line Parse refuses. It names the file, the line and, when the
// line has a valid name, the variable; never any part of the line.
type Error struct {
	File    string
	Line    int
	Name    string // empty when the line has no valid name
	Problem Problem
	First   int // for Duplicate: the line of the first assignment
}

func (e *Error) Error() string {
	msg := e.Problem.message()
	if e.Problem == Duplicate {
		msg = fmt.Sprintf("%s (first on line %d)", msg, e.First)
	}
	if e.Name != "" {
		return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Name, msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, msg)
}

// Hint says how to fix the line, or "" when the message says it already.
func (e *Error) Hint() string { return e.Problem.hint() }

const bom = "\uFEFF"

// The bounds of an env file, each named in the error that reports it: the
// file's size (Load), its lines and one value's length (Parse). A value
// past Threshold in internal/envpass still reaches the stages, on a
// descriptor; these bounds keep that descriptor within its own.
const (
	// MaxSize is the most bytes Load reads from an env file.
	MaxSize = 16 << 20
	// MaxLines is the most lines, blank and comment lines included.
	MaxLines = 4096
	// MaxValue is the longest value, in bytes.
	MaxValue = 1 << 20
)

// Parse reads data, the contents of the env file called name, and returns its
// assignments in file order, or the first line it refuses as an *Error.
func Parse(name string, data []byte) ([]Var, error) {
	data = bytes.TrimPrefix(data, []byte(bom))
	var vars []Var
	first := map[string]int{}
	lineNo := 0
	for len(data) > 0 {
		lineNo++
		if lineNo > MaxLines {
			return nil, &Error{File: name, Line: lineNo, Problem: TooManyLines}
		}
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
			line = bytes.TrimSuffix(line, []byte{'\r'})
		} else {
			line, data = data, nil
		}
		v, p := parseLine(string(line))
		if p == "" && len(v.Value) > MaxValue {
			p = ValueTooLong
		}
		if p == "" && v.Name != "" {
			if at, ok := first[v.Name]; ok {
				return nil, &Error{File: name, Line: lineNo, Name: v.Name, Problem: Duplicate, First: at}
			}
			first[v.Name] = lineNo
			v.Line = lineNo
			vars = append(vars, v)
		}
		if p != "" {
			return nil, &Error{File: name, Line: lineNo, Name: v.Name, Problem: p}
		}
	}
	return vars, nil
}

// parseLine reads one line without its line break. It returns the zero Var
// for a blank or comment line, and the Var's Name (when valid) alongside a
// problem so that the error can name it.
func parseLine(line string) (Var, Problem) {
	rest := strings.TrimLeft(line, " \t")
	if rest == "" {
		return Var{}, ""
	}
	if !utf8.ValidString(line) {
		return Var{Name: tentativeName(rest)}, InvalidUTF8
	}
	if hasLineBreak(line) {
		return Var{Name: tentativeName(rest)}, LineBreak
	}
	if rest[0] == '#' {
		return Var{}, ""
	}
	name := tentativeName(rest)
	if strings.IndexByte(line, 0) >= 0 {
		return Var{Name: name}, NUL
	}
	eq := strings.IndexByte(rest, '=')
	if eq < 0 {
		return Var{}, NoEquals
	}
	if name == "" {
		return Var{}, BadName
	}
	value, p := parseValue(strings.TrimLeft(rest[eq+1:], " \t"))
	return Var{Name: name, Value: value}, p
}

// tentativeName returns the name the assignment rest begins with, or "" when
// what stands before its = isn't one.
func tentativeName(rest string) string {
	eq := strings.IndexByte(rest, '=')
	if eq < 0 {
		return ""
	}
	left := strings.TrimRight(rest[:eq], " \t")
	if after, ok := strings.CutPrefix(left, "export"); ok && after != "" && (after[0] == ' ' || after[0] == '\t') {
		left = strings.TrimLeft(after, " \t")
	}
	if !IsName(left) {
		return ""
	}
	return left
}

// IsName reports whether s is an environment variable name: ASCII letters,
// digits and _, not starting with a digit.
func IsName(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// hasLineBreak reports a character that some loader reads as the end of a
// line: \n never reaches here, and \r does only when not before \n.
func hasLineBreak(s string) bool {
	for _, r := range s {
		switch r {
		case '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
			return true
		}
	}
	return false
}

func hasControl(s string) bool {
	for _, r := range s {
		if r != '\t' && unicode.IsControl(r) {
			return true
		}
	}
	return false
}

// parseValue reads what follows the = and its blanks.
func parseValue(s string) (string, Problem) {
	if s == "" {
		return "", ""
	}
	switch q := s[0]; q {
	case '\'', '"':
		end := strings.IndexByte(s[1:], q)
		if end < 0 {
			return "", OpenQuote
		}
		value, after := s[1:1+end], strings.TrimLeft(s[2+end:], " \t")
		if q == '"' && strings.IndexByte(value, '\\') >= 0 {
			return "", DoubleQuotedBackslash
		}
		if q == '\'' && (strings.HasSuffix(value, `\`) || strings.Contains(value, `\\`)) {
			return "", SingleQuotedBackslash
		}
		if hasControl(value) {
			return "", Control
		}
		if after != "" && after[0] != '#' {
			return "", AfterQuote
		}
		return value, ""
	case '`':
		return "", Backquote
	case '#':
		return "", HashStart
	}
	value := strings.TrimRight(s, " \t")
	switch {
	case strings.Contains(value, " #") || strings.Contains(value, "\t#"):
		return "", HashAfterBlank
	case strings.HasSuffix(value, `\`):
		return "", TrailingBackslash
	case hasControl(value):
		return "", Control
	}
	return value, ""
}
