// Package canon is the canonical JSON encoding of Zap's documents: the bytes
// that feed a hash (plan_hash, a resource's hash, a declaration's hash).
//
// The canonical form of a JSON value is its compact encoding with object keys
// sorted bytewise by their UTF-8 encoding (except that a "format" key comes
// first, so every document opens with its format name and version), no insignificant whitespace, strings escaped the way
// encoding/json escapes them with HTML escaping off, and numbers written as
// they were read. Two documents that decode to the same value have the same
// canonical bytes, and canonical bytes decode and encode back to themselves.
//
// Check is the strict reading every document reader runs first: it refuses
// a document past the limits of a document (MaxDepth, MaxValues; readers
// hold its bytes to MaxSize with ReadAll), duplicate object keys and
// (unless the caller allows them at a path) null, naming the bound or the
// path of the offending value.
package canon

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strconv"
)

// Marshal encodes v with encoding/json and rewrites the result in canonical
// form.
func Marshal(v any) ([]byte, error) {
	// A value that writes itself (a document's MarshalJSON) is asked
	// directly: encoding/json would only check and compact what it wrote,
	// which Transform's fast path does anyway. Anything that path doesn't
	// answer goes through encoding/json, which words the error.
	if m, ok := v.(json.Marshaler); ok {
		if rv := reflect.ValueOf(v); rv.Kind() != reflect.Pointer || !rv.IsNil() {
			if raw, err := m.MarshalJSON(); err == nil {
				if out, ok := transformFast(raw); ok {
					return out, nil
				}
			}
		}
	}
	// No HTML escaping: the fewer escapes, the more strings the fast path
	// copies as they are.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return Transform(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// Transform rewrites one JSON value in canonical form. Input that is not a
// single JSON value is an error.
func Transform(data []byte) ([]byte, error) {
	if out, ok := transformFast(data); ok {
		return out, nil
	}
	return transformSlow(data)
}

// transformSlow is Transform through encoding/json's decoder: the reading
// that decides every document the fast path doesn't, and words its error.
func transformSlow(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("canon: data after the JSON value")
	}
	var buf bytes.Buffer
	if err := write(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func write(buf *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case nil:
		buf.WriteString("null")
	case bool:
		if v {
			buf.WriteString("true")
		} else {
			buf.WriteString("false")
		}
	case json.Number:
		s, err := number(v)
		if err != nil {
			return err
		}
		buf.WriteString(s)
	case string:
		writeString(buf, v)
	case []any:
		buf.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := write(buf, e); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return keyLess(keys[i], keys[j]) })
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeString(buf, k)
			buf.WriteByte(':')
			if err := write(buf, v[k]); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	default:
		return fmt.Errorf("canon: unexpected %T", v)
	}
	return nil
}

// keyLess orders object keys: "format" first, so every document opens with
// its format name and version, then the rest bytewise.
func keyLess(a, b string) bool {
	if a == "format" || b == "format" {
		return a == "format" && b != "format"
	}
	return a < b
}

// number writes an integer in its shortest decimal form. Zap's documents
// hold only integers, so a fraction or an exponent is refused rather than
// given a second spelling.
func number(n json.Number) (string, error) {
	i, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil {
		return "", fmt.Errorf("canon: number %s is not an integer Zap reads", n)
	}
	return strconv.FormatInt(i, 10), nil
}

func writeString(buf *bytes.Buffer, s string) {
	buf.Write(AppendString(buf.AvailableBuffer(), s))
}

// Check reads data as one JSON value and refuses duplicate object keys, a
// string that isn't UTF-8 text (checkText) and, unless allowNull reports
// true for its path, null. Paths are written as
// field.sub[2].name. allowNull may be nil. A document past MaxDepth or
// MaxValues is refused (a *LimitError) before the decoder reads anything
// from it: the fast path counts as it goes, and Bounds counts for the
// decoder.
func Check(data []byte, allowNull func(path string) bool) error {
	ok, limit := checkFast(data, allowNull)
	if ok {
		return checkText(data)
	}
	if limit != nil {
		return limit
	}
	if err := Bounds(data); err != nil {
		return err
	}
	if err := checkSlow(data, allowNull); err != nil {
		return err
	}
	return checkText(data)
}

// checkSlow is Check through encoding/json's tokenizer: the reading that
// decides every document the fast path doesn't, and words its error. The
// path of the value being read is kept as a stack of keys and indexes and
// written out only for an error or a null.
func checkSlow(data []byte, allowNull func(path string) bool) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	c := &slowCheck{dec: dec, allowNull: allowNull}
	if err := c.value(); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		if err != nil {
			return err
		}
		return errors.New("data after the JSON value")
	}
	return nil
}

// PathError names where in a document a value is wrong.
type PathError struct {
	Path string
	Msg  string
}

func (e *PathError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// slowCheck is checkSlow's reading: the decoder, and the path of the value
// it is at.
type slowCheck struct {
	dec       *json.Decoder
	allowNull func(string) bool
	path      []segment
}

func (c *slowCheck) errorf(err error) error {
	return &PathError{Path: pathString(c.path), Msg: err.Error()}
}

// value checks the value at the decoder's position, at c.path.
func (c *slowCheck) value() error {
	tok, err := c.dec.Token()
	if err != nil {
		if len(c.path) > 0 {
			return c.errorf(err)
		}
		return err
	}
	switch t := tok.(type) {
	case nil:
		if c.allowNull == nil || !c.allowNull(pathString(c.path)) {
			return &PathError{Path: pathString(c.path), Msg: "null is not a value here; leave the field out instead"}
		}
	case json.Delim:
		// Bounds held the document to MaxDepth already; this keeps the
		// recursion bounded whatever reaches it.
		if len(c.path) >= MaxDepth {
			return &LimitError{Bound: BoundDepth, Limit: MaxDepth, Offset: c.dec.InputOffset() - 1}
		}
		switch t {
		case '{':
			seen := map[string]bool{}
			for c.dec.More() {
				kt, err := c.dec.Token()
				if err != nil {
					return c.errorf(err)
				}
				key := kt.(string)
				c.path = append(c.path, segment{key: []byte(key), index: -1})
				if seen[key] {
					return &PathError{Path: pathString(c.path), Msg: "field given twice"}
				}
				seen[key] = true
				if err := c.value(); err != nil {
					return err
				}
				c.path = c.path[:len(c.path)-1]
			}
		case '[':
			for i := 0; c.dec.More(); i++ {
				c.path = append(c.path, segment{index: i})
				if err := c.value(); err != nil {
					return err
				}
				c.path = c.path[:len(c.path)-1]
			}
		}
		if _, err := c.dec.Token(); err != nil {
			return c.errorf(err)
		}
	}
	return nil
}
