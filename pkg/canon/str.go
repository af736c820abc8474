package canon

import (
	"encoding/binary"
	"math/bits"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The string code the fast paths and the document packages share: a scan
// that passes over runs of ordinary bytes eight at a time, Unquote (a JSON
// string's value, as encoding/json decodes it) and AppendString (a string's
// canonical spelling, as encoding/json writes it with HTML escaping off).

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// special returns the high bit of each of the eight bytes in x (the
// first in memory lowest) that is a quote, a backslash or a control byte
// (below 0x20), or, when high is set, a byte past ASCII. Each test is the
// "some byte is zero / below n" word trick: a borrow runs only upward from
// a byte that matches, so the lowest bit set is the first byte to look at,
// exactly, and a word with no bit set holds none of them.
func special(x uint64, high bool) uint64 {
	q := x ^ (ones * '"')
	b := x ^ (ones * '\\')
	s := ((q - ones) &^ q) | ((b - ones) &^ b) | ((x - ones*0x20) &^ x)
	if high {
		s |= x
	}
	return s & highs
}

// stringEnd returns the index of the byte at or after i in d that a
// string's scan must look at: a quote, a backslash, a control byte or,
// when high is set, a byte past ASCII (len(d) when there is none).
func stringEnd(d []byte, i int, high bool) int {
	for i+8 <= len(d) {
		if m := special(binary.LittleEndian.Uint64(d[i:]), high); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
		i += 8
	}
	for i < len(d) {
		c := d[i]
		if c == '"' || c == '\\' || c < 0x20 || high && c >= utf8.RuneSelf {
			return i
		}
		i++
	}
	return i
}

// scanString returns the index of the first quote, backslash or control
// byte at or after i in d (len(d) when there is none), and whether a byte
// past ASCII was passed over on the way.
func scanString(d []byte, i int) (int, bool) {
	var acc uint64
	for i+8 <= len(d) {
		x := binary.LittleEndian.Uint64(d[i:])
		if m := special(x, false); m != 0 {
			n := bits.TrailingZeros64(m) / 8
			acc |= x & (1<<(8*n) - 1)
			return i + n, acc&highs != 0
		}
		acc |= x
		i += 8
	}
	var accb byte
	for i < len(d) {
		c := d[i]
		if c == '"' || c == '\\' || c < 0x20 {
			break
		}
		accb |= c
		i++
	}
	return i, acc&highs != 0 || accb >= utf8.RuneSelf
}

// Unquote returns the value of raw, exactly one JSON string (quotes
// included, no space around it), as encoding/json's Unmarshal into a string
// decodes it: escapes undone, a \uXXXX surrogate pair joined, a lone
// surrogate and each byte of invalid UTF-8 read as U+FFFD. ok is false for
// anything that isn't one well-formed JSON string.
func Unquote(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	// The common case: no escape, no invalid UTF-8, the bytes as they are.
	i := 0
	for i < len(body) {
		i = stringEnd(body, i, true)
		if i == len(body) {
			break
		}
		c := body[i]
		if c < utf8.RuneSelf {
			break // a quote, a backslash or a control byte
		}
		r, size := utf8.DecodeRune(body[i:])
		if r == utf8.RuneError && size == 1 {
			break
		}
		i += size
	}
	if i == len(body) {
		return string(body), true
	}
	var b strings.Builder
	b.Grow(len(body))
	b.Write(body[:i])
	for i < len(body) {
		c := body[i]
		switch {
		case c == '\\':
			if i+1 >= len(body) {
				return "", false
			}
			e := body[i+1]
			if d, ok := shortEscape(e); ok {
				b.WriteByte(d)
				i += 2
				continue
			}
			switch e {
			case 'u':
				r := u4(body[i:])
				if r < 0 {
					return "", false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					if d := utf16.DecodeRune(r, u4(body[i:])); d != utf8.RuneError {
						r = d
						i += 6
					} else {
						r = utf8.RuneError
					}
				}
				b.WriteRune(r)
			default:
				return "", false
			}
		case c == '"' || c < 0x20:
			return "", false
		case c < utf8.RuneSelf:
			j := stringEnd(body, i, true)
			b.Write(body[i:j])
			i = j
		default:
			r, size := utf8.DecodeRune(body[i:])
			if r == utf8.RuneError && size == 1 {
				b.WriteRune(utf8.RuneError)
			} else {
				b.Write(body[i : i+size])
			}
			i += size
		}
	}
	return b.String(), true
}

// u4 reads a \uXXXX escape at the start of s; -1 when there is none.
func u4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		if !isHex(c) {
			return -1
		}
		r = r<<4 | rune(unhex(c))
	}
	return r
}

// AppendString appends s's canonical spelling to dst, the bytes
// Marshal(s) makes: s quoted and escaped as encoding/json escapes it with
// HTML escaping off (\" \\ \b \f \n \r \t, other control bytes as
// \u00XX, U+2028 and U+2029 as \u2028 and \u2029), with each byte of
// invalid UTF-8 written as U+FFFD, which encoding/json's \ufffd for it
// reads as.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = appendEscape(append(dst, s[start:i]...), c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\uFFFD"...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// KeyLess is the order of a canonical object's keys: "format" first, then
// the rest bytewise. A writer that spells a map's members itself sorts its
// keys with it.
func KeyLess(a, b string) bool { return keyLess(a, b) }

// appendEscape appends the canonical escape of c, a control character, a
// quote or a backslash: the short form where JSON has one, else \u00XX.
func appendEscape(dst []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
}

// shortEscape is the byte a one-letter escape (\" \\ \/ \b \f \n \r \t)
// stands for, the letter after the backslash given; false for any other.
func shortEscape(e byte) (byte, bool) {
	switch e {
	case '"', '\\', '/':
		return e, true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}
