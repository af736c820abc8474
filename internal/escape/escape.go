// Package escape writes text taken from the config, the environment or the
// target so that it can't move the cursor, reorder what is shown or sit in a
// line unseen. In text output every control character but tab, the line and
// paragraph separators, bidirectional controls and default-ignorable
// characters are spelled <U+XXXX>, and a tab becomes spaces. In JSON output the
// same characters are \u escapes, so the stream decodes to the same values.
package escape

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Invisible reports whether r is written escaped.
func Invisible(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
		return true
	case r == 0xad, r == 0x034f, r == 0x061c, r == 0x115f, r == 0x1160, r == 0x17b4, r == 0x17b5,
		r >= 0x180b && r <= 0x180f, r == 0x3164, r == 0xffa0:
		return true
	case r >= 0x200b && r <= 0x200f, r >= 0x2028 && r <= 0x202e, r >= 0x2060 && r <= 0x206f:
		return true
	case r == 0xfeff, r >= 0xfe00 && r <= 0xfe0f, r >= 0xfff0 && r <= 0xfffb:
		return true
	case r >= 0xfdd0 && r <= 0xfdef, r == 0xfffe, r == 0xffff:
		return true
	case r >= 0x1bca0 && r <= 0x1bca3, r >= 0x1d173 && r <= 0x1d17a, r >= 0xe0000 && r <= 0xe0fff:
		return true
	case r == utf8.RuneError:
		return true
	}
	return unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Co, r) || unicode.Is(unicode.Cs, r)
}

func spell(r rune) string { return fmt.Sprintf("<U+%04X>", r) }

// Line escapes a one-line value for text output: every invisible character,
// line breaks included, is spelled out, and a tab is written as four spaces.
// Invalid UTF-8 bytes are spelled as <U+FFFD>.
func Line(s string) string {
	if !needs(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\t':
			b.WriteString("    ")
		case Invisible(r):
			b.WriteString(spell(r))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Block escapes text that keeps its lines (a command, a script, a command's
// output): it returns the lines, each escaped as by Line. A final newline
// ends the last line rather than adding an empty one.
func Block(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	parts := strings.Split(s, "\n")
	for i, p := range parts {
		parts[i] = Line(p)
	}
	return parts
}

// Indent escapes s as a block and joins its lines with a newline and
// indent, so that continuation lines sit under the first.
func Indent(s, indent string) string {
	return strings.Join(Block(s), "\n"+indent)
}

func needs(s string) bool {
	for _, r := range s {
		if r == '\t' || Invisible(r) {
			return true
		}
	}
	return false
}

// JSON rewrites encoded JSON so that every invisible character inside a
// string is a \u escape. encoding/json already escapes control characters
// below U+0020 and the line separators; this adds the rest.
func JSON(b []byte) []byte {
	s := string(b)
	if !needsJSON(s) {
		return b
	}
	var out strings.Builder
	for _, r := range s {
		if r >= 0x20 && Invisible(r) && r != utf8.RuneError {
			if r > 0xffff {
				r1, r2 := utf16Pair(r)
				fmt.Fprintf(&out, `\u%04x\u%04x`, r1, r2)
			} else {
				fmt.Fprintf(&out, `\u%04x`, r)
			}
			continue
		}
		out.WriteRune(r)
	}
	return []byte(out.String())
}

func needsJSON(s string) bool {
	for _, r := range s {
		if r >= 0x20 && Invisible(r) && r != utf8.RuneError {
			return true
		}
	}
	return false
}

func utf16Pair(r rune) (rune, rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}
