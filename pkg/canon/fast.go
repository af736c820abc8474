package canon

import (
	"bytes"
	"encoding/json"
	"slices"
	"unicode/utf8"
)

// The fast paths. Transform and Check first read the document in one pass
// over its bytes, with no decoder and no values built. A document that
// reads cleanly (the common case: a well-formed document Zap wrote) is
// answered there; anything else (a syntax error, a duplicate key, a number
// that isn't an integer, a string whose encoding would change) goes to the
// decoder-based reading, which decides and words the error. The fast path
// only ever answers what the decoder-based one would: for Transform the same
// bytes, for Check no error.
//
// What they save (BenchmarkCheck, BenchmarkTransform: a declaration of n
// files with 40 lines of inline content each; a loaded 2-core machine, so
// the ratios are what count):
//
//	                 fast                       decoder's
//	Check     200    0.18 ms, 8 allocs          14 ms, 22,855 allocs
//	Check     2,000  2.8 ms, 8 allocs           84 ms, 228,055 allocs
//	Check     20,000 77 ms, 8 allocs            648 ms, 2,280,055 allocs (57 MB)
//	Transform 200    1.0 ms, 1,605 allocs       4.9 ms, 7,072 allocs
//	Transform 2,000  26 ms, 16,005 allocs       105 ms, 70,091 allocs
//	Transform 20,000 246 ms, 160,005 allocs     705 ms, 700,108 allocs
//
// Every document read runs Check, and every document written Transform,
// in each stage: zap plan of a converged 2,000-file local config took
// 1,240 ms of CPU with the fast paths and 1,420 ms without (+15%, median
// of 7 interleaved runs), and the gap grows with the config. Members,
// MemberList and Elements below split an object or a list in the same one
// pass for internal/strict's decoding.

// maxDepth bounds the fast paths' recursion; deeper documents take the
// decoder's path.
const maxDepth = 1000

type fast struct {
	data []byte
	pos  int
	// allowNull and path are Check's: the path of the value being read, a
	// key or an index per level, built into a string only at a null.
	allowNull func(string) bool
	path      []segment
	depth     int
	// wellFormed says data is known to be well-formed JSON (see
	// MemberListValid): skip passes over a string to its closing quote
	// without checking what it holds.
	wellFormed bool
	// keys is the stack of the keys of the objects being read, each
	// object's above its parent's, so an object's keys take no
	// allocation of their own.
	keys [][]byte
	// values is how many values check has read, and limit the bound it
	// stopped at (MaxDepth, MaxValues), if any.
	values int
	limit  *LimitError
}

type segment struct {
	key   []byte
	index int // -1 for a key
}

func (f *fast) ws() {
	for f.pos < len(f.data) {
		switch f.data[f.pos] {
		case ' ', '\t', '\n', '\r':
			f.pos++
		default:
			return
		}
	}
}

// at reads any whitespace and reports whether the byte at pos is c.
func (f *fast) at(c byte) bool {
	f.ws()
	return f.pos < len(f.data) && f.data[f.pos] == c
}

// key reads a member's key at pos (after any whitespace) and the colon
// after it: the key's raw bytes, whether its canonical encoding is those
// bytes (as str says), and the key decoded.
func (f *fast) key() (raw []byte, plain bool, key []byte, ok bool) {
	if !f.at('"') {
		return nil, false, nil, false
	}
	if raw, plain, ok = f.str(); !ok {
		return nil, false, nil, false
	}
	if key, ok = decodedBytes(raw, plain); !ok || !f.at(':') {
		return nil, false, nil, false
	}
	f.pos++
	return raw, plain, key, true
}

// str reads a string at pos (its opening quote) and returns its raw bytes,
// quotes included, and whether its canonical encoding is those bytes (no
// escape, valid UTF-8, no U+2028 or U+2029).
func (f *fast) str() (raw []byte, plain bool, ok bool) {
	d := f.data
	start := f.pos
	i := f.pos + 1
	plain = true
	high := false // a byte past ASCII: the body's UTF-8 is checked
	for {
		j, h := scanString(d, i)
		high = high || h
		i = j
		if i >= len(d) {
			f.pos = i
			return nil, false, false
		}
		switch c := d[i]; {
		case c == '"':
			i++
			f.pos = i
			raw = d[start:i]
			if plain && high {
				body := raw[1 : len(raw)-1]
				plain = utf8.Valid(body) && !bytes.Contains(body, []byte("\u2028")) && !bytes.Contains(body, []byte("\u2029"))
			}
			return raw, plain, true
		case c < 0x20:
			f.pos = i
			return nil, false, false
		default: // a backslash
			plain = false
			i++
			if i >= len(d) {
				f.pos = i
				return nil, false, false
			}
			switch d[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if i+5 > len(d) {
					f.pos = i
					return nil, false, false
				}
				for _, h := range d[i+1 : i+5] {
					if !isHex(h) {
						f.pos = i
						return nil, false, false
					}
				}
				i += 5
			default:
				f.pos = i
				return nil, false, false
			}
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// decoded is a string's value: its bytes when plain, else as encoding/json
// decodes it.
func decoded(raw []byte, plain bool) (string, bool) {
	if plain {
		return string(raw[1 : len(raw)-1]), true
	}
	return Unquote(raw)
}

// decodedBytes is decoded as bytes: a plain string's body as it is, with
// no copy.
func decodedBytes(raw []byte, plain bool) ([]byte, bool) {
	if plain {
		return raw[1 : len(raw)-1], true
	}
	s, ok := Unquote(raw)
	return []byte(s), ok
}

// number reads a JSON number at pos and returns its bytes.
func (f *fast) number() ([]byte, bool) {
	start := f.pos
	d := f.data
	if f.pos < len(d) && d[f.pos] == '-' {
		f.pos++
	}
	switch {
	case f.pos < len(d) && d[f.pos] == '0':
		f.pos++
	case f.pos < len(d) && '1' <= d[f.pos] && d[f.pos] <= '9':
		f.digits()
	default:
		return nil, false
	}
	if f.pos < len(d) && d[f.pos] == '.' {
		f.pos++
		if f.digits() == 0 {
			return nil, false
		}
	}
	if f.pos < len(d) && (d[f.pos] == 'e' || d[f.pos] == 'E') {
		f.pos++
		if f.pos < len(d) && (d[f.pos] == '+' || d[f.pos] == '-') {
			f.pos++
		}
		if f.digits() == 0 {
			return nil, false
		}
	}
	return d[start:f.pos], true
}

// digits passes over the decimal digits at f.pos and says how many.
func (f *fast) digits() int {
	n := f.pos
	for f.pos < len(f.data) && '0' <= f.data[f.pos] && f.data[f.pos] <= '9' {
		f.pos++
	}
	return f.pos - n
}

func (f *fast) literal(word string) bool {
	if !bytes.HasPrefix(f.data[f.pos:], []byte(word)) {
		return false
	}
	f.pos += len(word)
	return true
}

// member is one object member as transform wrote it: its decoded key and
// where its "key":value bytes are in the object's scratch.
type member struct {
	key        []byte
	start, end int
}

// transform appends the canonical form of the value at pos to out.
func (f *fast) transform(out []byte) ([]byte, bool) {
	f.ws()
	if f.pos >= len(f.data) {
		return nil, false
	}
	c := f.data[f.pos]
	switch {
	case c == '{':
		return f.object(out)
	case c == '[':
		out = append(out, '[')
		if empty, ok := f.open(']'); !ok {
			return nil, false
		} else if empty {
			return append(out, ']'), true
		}
		for more := true; more; {
			var ok bool
			if out, ok = f.transform(out); !ok {
				return nil, false
			}
			if more, ok = f.sep(']'); !ok {
				return nil, false
			}
			if more {
				out = append(out, ',')
			}
		}
		f.depth--
		return append(out, ']'), true
	case c == '"':
		raw, plain, ok := f.str()
		if !ok {
			return nil, false
		}
		return appendString(out, raw, plain)
	case c == '-' || '0' <= c && c <= '9':
		n, ok := f.number()
		if !ok {
			return nil, false
		}
		s, err := number(json.Number(n))
		if err != nil {
			return nil, false
		}
		return append(out, s...), true
	case c == 't':
		return append(out, "true"...), f.literal("true")
	case c == 'f':
		return append(out, "false"...), f.literal("false")
	case c == 'n':
		return append(out, "null"...), f.literal("null")
	}
	return nil, false
}

// appendString appends a string's canonical form: its raw bytes when
// plain, else its value escaped as writeString escapes it. Escapes of ASCII
// characters (json.Marshal's \u003c, a \n) are undone and redone here;
// any other string goes through the decoder and writeString.
func appendString(out, raw []byte, plain bool) ([]byte, bool) {
	if plain {
		return append(out, raw...), true
	}
	if o, ok := appendEscaped(out, raw); ok {
		return o, true
	}
	s, ok := decoded(raw, false)
	if !ok {
		return nil, false
	}
	return AppendString(out, s), true
}

const hexDigits = "0123456789abcdef"

// appendEscaped re-escapes a string whose escapes all stand for ASCII
// characters and whose other bytes are valid UTF-8; false for any other.
func appendEscaped(out, raw []byte) ([]byte, bool) {
	body := raw[1 : len(raw)-1]
	start := len(out)
	out = append(out, '"')
	for i := 0; i < len(body); {
		// A run of ASCII bytes with no escape is copied as it is: in a
		// string that read cleanly, it holds no quote or control byte.
		if j := stringEnd(body, i, true); j > i {
			out = append(out, body[i:j]...)
			if i = j; i == len(body) {
				break
			}
		}
		c := body[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRune(body[i:])
			if r == utf8.RuneError && size == 1 {
				return out[:start], false
			}
			if r == '\u2028' || r == '\u2029' {
				out = append(out, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			} else {
				out = append(out, body[i:i+size]...)
			}
			i += size
			continue
		}
		if c == '\\' {
			if d, ok := shortEscape(body[i+1]); ok {
				c, i = d, i+2
			} else { // \uXXXX: the string read cleanly
				v := 0
				for _, h := range body[i+2 : i+6] {
					v = v<<4 | int(unhex(h))
				}
				if v >= utf8.RuneSelf {
					return out[:start], false
				}
				c = byte(v)
				i += 6
			}
		} else {
			i++
		}
		if c < 0x20 || c == '"' || c == '\\' {
			out = appendEscape(out, c)
		} else {
			out = append(out, c)
		}
	}
	return append(out, '"'), true
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// open steps into the object or array at f.pos, whose closing byte is end,
// one level deeper: ok is false past maxDepth, and empty is true (the
// closing byte read, the level left again) for {} or [].
func (f *fast) open(end byte) (empty, ok bool) {
	f.depth++
	if f.depth > maxDepth {
		return false, false
	}
	f.pos++
	if f.at(end) {
		f.pos++
		f.depth--
		return true, true
	}
	return false, true
}

func (f *fast) object(out []byte) ([]byte, bool) {
	open := len(out)
	out = append(out, '{')
	var members []member
	if empty, ok := f.open('}'); !ok {
		return nil, false
	} else if empty {
		return append(out, '}'), true
	}
	for {
		raw, plain, key, ok := f.key()
		if !ok {
			return nil, false
		}
		if len(members) > 0 {
			out = append(out, ',')
		}
		start := len(out)
		if out, ok = appendString(out, raw, plain); !ok {
			return nil, false
		}
		out = append(out, ':')
		if out, ok = f.transform(out); !ok {
			return nil, false
		}
		members = append(members, member{key: key, start: start, end: len(out)})
		more, ok := f.sep('}')
		if !ok {
			return nil, false
		}
		if more {
			continue
		}
		break
	}
	f.depth--
	sorted := slices.IsSortedFunc(members, func(a, b member) int { return cmpKey(a.key, b.key) })
	if !sorted {
		slices.SortFunc(members, func(a, b member) int { return cmpKey(a.key, b.key) })
	}
	for i := 1; i < len(members); i++ {
		if bytes.Equal(members[i].key, members[i-1].key) {
			return nil, false // a duplicate: the decoder keeps the last
		}
	}
	if sorted {
		// Written in order already, commas between.
		return append(out, '}'), true
	}
	// Rewrite the members in order, with commas between them.
	scratch := slices.Clone(out[open+1:])
	out = out[:open+1]
	for i, m := range members {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, scratch[m.start-open-1:m.end-open-1]...)
	}
	return append(out, '}'), true
}

// cmpKey orders decoded keys as keyLess does.
func cmpKey(a, b []byte) int {
	af, bf := string(a) == "format", string(b) == "format"
	switch {
	case af && bf:
		return 0
	case af:
		return -1
	case bf:
		return 1
	}
	return bytes.Compare(a, b)
}

// transformFast is Transform's fast path; false sends the document to the
// decoder.
func transformFast(data []byte) ([]byte, bool) {
	f := &fast{data: data}
	out, ok := f.transform(make([]byte, 0, len(data)))
	if !ok {
		return nil, false
	}
	f.ws()
	return out, f.pos == len(data)
}

// checkFast is Check's fast path: true when the document is one JSON value
// within MaxDepth and MaxValues with no duplicate key and no null but where
// allowNull allows one. False with limit set is a document past one of
// them, at the first place Bounds finds it; false with none sends the
// document to the decoder, which words the error.
func checkFast(data []byte, allowNull func(string) bool) (ok bool, limit *LimitError) {
	f := &fast{data: data, allowNull: allowNull}
	if !f.check() {
		return false, f.limit
	}
	f.ws()
	return f.pos == len(data), nil
}

// pathString writes a path kept as a stack of segments, as Check names it:
// field.sub[2].name.
func pathString(path []segment) string {
	var b []byte
	for _, s := range path {
		if s.index >= 0 {
			b = append(b, '[')
			b = append(b, []byte(itoa(s.index))...)
			b = append(b, ']')
			continue
		}
		if len(b) > 0 {
			b = append(b, '.')
		}
		b = append(b, s.key...)
	}
	return string(b)
}

func itoa(i int) string {
	return string(appendInt(nil, i))
}

func appendInt(b []byte, i int) []byte {
	if i >= 10 {
		b = appendInt(b, i/10)
	}
	return append(b, byte('0'+i%10))
}

// checkAt checks the value at f.pos as the member or element seg of its
// container, then reads what follows it: more is true after a comma, false
// after end.
func (f *fast) checkAt(seg segment, end byte) (more, ok bool) {
	f.path = append(f.path, seg)
	if !f.check() {
		return false, false
	}
	f.path = f.path[:len(f.path)-1]
	return f.sep(end)
}

func (f *fast) check() bool {
	f.ws()
	if f.pos >= len(f.data) {
		return false
	}
	if f.values++; f.values > MaxValues {
		f.limit = &LimitError{Bound: BoundValues, Limit: MaxValues, Offset: int64(f.pos)}
		return false
	}
	c := f.data[f.pos]
	if (c == '{' || c == '[') && f.depth >= MaxDepth {
		f.limit = &LimitError{Bound: BoundDepth, Limit: MaxDepth, Offset: int64(f.pos)}
		return false
	}
	switch {
	case c == '{':
		if empty, ok := f.open('}'); !ok || empty {
			return ok
		}
		base := len(f.keys)
		var seen map[string]bool
		for more := true; more; {
			_, _, key, ok := f.key()
			if !ok || !f.newKey(base, &seen, key) {
				return false
			}
			if more, ok = f.checkAt(segment{key: key, index: -1}, '}'); !ok {
				return false
			}
		}
		f.keys = f.keys[:base]
		f.depth--
		return true
	case c == '[':
		if empty, ok := f.open(']'); !ok || empty {
			return ok
		}
		for i, more := 0, true; more; i++ {
			var ok bool
			if more, ok = f.checkAt(segment{index: i}, ']'); !ok {
				return false
			}
		}
		f.depth--
		return true
	case c == 'n':
		if !f.literal("null") {
			return false
		}
		return f.allowNull != nil && f.allowNull(pathString(f.path))
	}
	return f.scalar(c)
}

// skip reads one well-formed JSON value at pos (after any whitespace),
// whatever it holds: nulls and duplicate keys included.
func (f *fast) skip() bool {
	f.ws()
	if f.pos >= len(f.data) {
		return false
	}
	c := f.data[f.pos]
	switch {
	case c == '{' || c == '[':
		end := byte('}')
		if c == '[' {
			end = ']'
		}
		if empty, ok := f.open(end); !ok || empty {
			return ok
		}
		for more := true; more; {
			if c == '{' {
				if !f.at('"') || !f.skipString() || !f.at(':') {
					return false
				}
				f.pos++
			}
			var ok bool
			if !f.skip() {
				return false
			}
			if more, ok = f.sep(end); !ok {
				return false
			}
		}
		f.depth--
		return true
	case c == 'n':
		return f.literal("null")
	case c == '"':
		return f.skipString()
	}
	return f.scalar(c)
}

// skipString reads the string at pos. In well-formed data its end is the
// first quote after it not escaped (not after an odd run of backslashes),
// found without looking at the bytes between; otherwise the string is read
// and checked as str reads it.
func (f *fast) skipString() bool {
	if !f.wellFormed {
		_, _, ok := f.str()
		return ok
	}
	d := f.data
	for i := f.pos + 1; ; {
		j := bytes.IndexByte(d[i:], '"')
		if j < 0 {
			return false
		}
		i += j
		n := 0
		for k := i - 1; k > f.pos && d[k] == '\\'; k-- {
			n++
		}
		i++
		if n%2 == 0 {
			f.pos = i
			return true
		}
	}
}

// scalar reads a string, a number, true or false at pos, c its first byte.
func (f *fast) scalar(c byte) bool {
	switch {
	case c == '"':
		_, _, ok := f.str()
		return ok
	case c == '-' || '0' <= c && c <= '9':
		_, ok := f.number()
		return ok
	case c == 't':
		return f.literal("true")
	case c == 'f':
		return f.literal("false")
	}
	return false
}

// sep reads what follows a member or an element: a comma, when more
// follows, or the closing byte end.
func (f *fast) sep(end byte) (more, ok bool) {
	f.ws()
	if f.pos >= len(f.data) {
		return false, false
	}
	switch f.data[f.pos] {
	case ',':
		f.pos++
		return true, true
	case end:
		f.pos++
		return false, true
	}
	return false, false
}

// value reads one value at pos and returns its bytes, capped so that an
// append to them can't write past them.
func (f *fast) value() ([]byte, bool) {
	f.ws()
	start := f.pos
	if !f.skip() {
		return nil, false
	}
	return f.data[start:f.pos:f.pos], true
}

// Members splits data, one JSON object, into its members' values by key,
// as encoding/json's Unmarshal into a map[string]json.RawMessage does,
// in one pass and without copying them (each value is capped: an append to
// it copies). ok is false for anything else: data that isn't one
// well-formed object, or an object that gives a key twice. Then the caller
// decodes it the long way, which decides it and words any error.
func Members(data []byte) (map[string]json.RawMessage, bool) {
	list, ok := MemberList(data, nil)
	if !ok {
		return nil, false
	}
	m := make(map[string]json.RawMessage, len(list))
	for _, e := range list {
		m[string(e.Key)] = e.Value
	}
	return m, true
}

// Member is one member of an object: its key, decoded, and its value's
// bytes.
type Member struct {
	Key   []byte
	Value json.RawMessage
}

// MemberList is Members as a list, in the object's order, appended to
// list: a key is its bytes in data when it has no escape, so reading an
// object allocates only the list. ok is false as for Members.
func MemberList(data []byte, list []Member) ([]Member, bool) {
	return memberList(&fast{data: data}, list)
}

// MemberListValid is MemberList for data known to be one well-formed JSON
// value: one canon.Check or encoding/json accepted, or a value MemberList,
// MemberListValid, Elements or ElementsValid split from such (they split
// only well-formed values). Its keys are read and checked as MemberList
// reads them, but its values' strings are passed over to their closing
// quote, not read byte by byte. Given data that isn't well-formed, its
// answer is unspecified.
func MemberListValid(data []byte, list []Member) ([]Member, bool) {
	return memberList(&fast{data: data, wellFormed: true}, list)
}

func memberList(f *fast, list []Member) ([]Member, bool) {
	if list == nil {
		list = make([]Member, 0, 8) // most objects have a few members
	}
	base := len(list)
	var seen map[string]bool
	ok := f.split('{', '}', func() bool {
		_, _, key, ok := f.key()
		if !ok || !newMember(list[base:], &seen, key) {
			return false
		}
		v, ok := f.value()
		list = append(list, Member{Key: key, Value: v})
		return ok
	})
	if !ok {
		return nil, false
	}
	return list, true
}

// newMember reports whether key is new among the keys of members, the
// object's read so far, or, past 16 of them, *seen, and records it there:
// newKey's check, kept in the list being built rather than in a stack of
// its own, so splitting an object allocates nothing but the list.
func newMember(members []Member, seen *map[string]bool, key []byte) bool {
	if *seen != nil {
		if (*seen)[string(key)] {
			return false
		}
		(*seen)[string(key)] = true
		return true
	}
	for _, m := range members {
		if bytes.Equal(m.Key, key) {
			return false
		}
	}
	if len(members) >= 16 {
		*seen = make(map[string]bool, len(members)+1)
		for _, m := range members {
			(*seen)[string(m.Key)] = true
		}
		(*seen)[string(key)] = true
	}
	return true
}

// newKey reports whether key is new among the keys of the object being
// read, f.keys[base:] or, past 16 of them, *seen, and records it there:
// few keys are compared one by one, many through a set.
func (f *fast) newKey(base int, seen *map[string]bool, key []byte) bool {
	if *seen != nil {
		if (*seen)[string(key)] {
			return false
		}
		(*seen)[string(key)] = true
		return true
	}
	for _, k := range f.keys[base:] {
		if bytes.Equal(k, key) {
			return false
		}
	}
	f.keys = append(f.keys, key)
	if len(f.keys)-base > 16 {
		*seen = make(map[string]bool, len(f.keys)-base)
		for _, k := range f.keys[base:] {
			(*seen)[string(k)] = true
		}
	}
	return true
}

// split reads data, one object or array whose opening byte is open and
// closing byte end, handing each of its members or elements to one, which
// reads it (a member's key included) and says whether it is well formed.
// Nothing but whitespace may follow the closing byte.
func (f *fast) split(open, end byte, one func() bool) bool {
	if !f.at(open) {
		return false
	}
	f.pos++
	if f.at(end) {
		f.pos++
	} else {
		for more := true; more; {
			var ok bool
			if !one() {
				return false
			}
			if more, ok = f.sep(end); !ok {
				return false
			}
		}
	}
	f.ws()
	return f.pos == len(f.data)
}

// Elements splits data, one JSON array, into its elements, as
// encoding/json's Unmarshal into a []json.RawMessage does, in one pass and
// without copying them. ok is false for data that isn't one well-formed
// array (null included).
func Elements(data []byte) ([]json.RawMessage, bool) {
	return elements(&fast{data: data})
}

// ElementsValid is Elements for data known to be one well-formed JSON
// value, as MemberListValid is MemberList.
func ElementsValid(data []byte) ([]json.RawMessage, bool) {
	return elements(&fast{data: data, wellFormed: true})
}

func elements(f *fast) ([]json.RawMessage, bool) {
	list := []json.RawMessage{}
	ok := f.split('[', ']', func() bool {
		v, ok := f.value()
		list = append(list, v)
		return ok
	})
	if !ok {
		return nil, false
	}
	return list, true
}
