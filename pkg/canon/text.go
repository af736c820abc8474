package canon

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// checkText refuses a document whose strings aren't all text: a byte that
// isn't UTF-8, or a \u escape of a surrogate that isn't half of a pair.
// Either would decode as U+FFFD, so a path or a name would reach the target
// changed; the error names the field. A document that is UTF-8 throughout
// with no surrogate escape, nearly every one, costs one pass of
// utf8.Valid and a search for \u.
func checkText(data []byte) error {
	at := -1
	what := ""
	if !utf8.Valid(data) {
		for i := 0; i < len(data); {
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				at, what = i, fmt.Sprintf("byte 0x%02X is not UTF-8", data[i])
				break
			}
			i += size
		}
	}
	if i := loneSurrogate(data); i >= 0 && (at < 0 || i < at) {
		at, what = i, fmt.Sprintf("%s is half of a surrogate pair, which is no character", data[i:i+6])
	}
	if at < 0 {
		return nil
	}
	return &PathError{Path: pathAt(data, at), Msg: fmt.Sprintf("%s (at byte %d): a document's strings are UTF-8 text", what, at)}
}

// loneSurrogate is the offset of the first \uXXXX escape of a surrogate
// that isn't a high one followed by an escaped low one, or -1. Only
// escapes count: a backslash that is itself escaped starts none.
func loneSurrogate(data []byte) int {
	for i := 0; ; {
		j := bytes.Index(data[i:], []byte(`\u`))
		if j < 0 {
			return -1
		}
		j += i
		n := 0 // backslashes before this one
		for k := j - 1; k >= 0 && data[k] == '\\'; k-- {
			n++
		}
		if n%2 == 1 {
			i = j + 2
			continue
		}
		r := u4(data[j:])
		switch {
		case r < 0 || !utf16.IsSurrogate(r):
			i = j + 2
		case r < 0xDC00 && utf16.DecodeRune(r, u4(data[j+6:])) != utf8.RuneError:
			i = j + 12
		default:
			return j
		}
	}
}

// pathAt names the field whose string holds data[at], written as Check
// writes paths (field.sub[2].name), reading the document's tokens up to
// it. It runs only for an error.
func pathAt(data []byte, at int) string {
	dec := json.NewDecoder(bytes.NewReader(data))
	type level struct {
		object bool
		key    string
		index  int
		keyed  bool // an object's key was read: its value is being read
	}
	var stack []level
	path := func() string {
		var segs []segment
		for _, l := range stack {
			if l.object {
				segs = append(segs, segment{key: []byte(l.key), index: -1})
			} else {
				segs = append(segs, segment{index: l.index})
			}
		}
		return pathString(segs)
	}
	for {
		before := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return path()
		}
		top := len(stack) - 1
		closing := tok == json.Delim('}') || tok == json.Delim(']')
		isKey := false
		if top >= 0 && !closing {
			if l := &stack[top]; !l.object {
				l.index++
			} else if !l.keyed {
				isKey = true
				l.key = tok.(string)
			}
		}
		if before <= int64(at) && int64(at) < dec.InputOffset() {
			return path()
		}
		switch {
		case closing:
			stack = stack[:top]
			if top > 0 {
				stack[top-1].keyed = false
			}
		case isKey:
			stack[top].keyed = true
		case tok == json.Delim('{') || tok == json.Delim('['):
			stack = append(stack, level{object: tok == json.Delim('{'), index: -1})
		case top >= 0:
			stack[top].keyed = false
		}
	}
}
