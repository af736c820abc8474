package strict

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"sync"

	"github.com/zap-go/zap/pkg/canon"
)

// Fields decodes a JSON object one named field at a time, so every error
// names the field's full path, a required field can't be left out, and a
// field nobody asked for is an error.
type Fields struct {
	path string
	// members are the object's members, each key once; used marks those
	// read, one bit per member (usedMore past the 64th). An object of many
	// members is looked up through index.
	members  []canon.Member
	used     uint64
	usedMore []bool
	index    map[string]int
	err      error
	// pooled is the list members was split into, taken from memberLists
	// and given back by Done.
	pooled *[]canon.Member
}

// memberLists holds the member lists of objects whose Fields are done, for
// the next object's: a document's objects are read one after another, each
// done before the next beside it starts, so a decode splits its thousands
// of objects into a few lists rather than allocating one each (1.6 of the
// 5.1 MB BenchmarkReadLarge's declaration of 2,000 files allocated).
var memberLists = sync.Pool{New: func() any {
	list := make([]canon.Member, 0, 16)
	return &list
}}

// maxPooledMembers is the longest list given back to memberLists: one that
// grew past it (an object of many members) is left to the collector.
const maxPooledMembers = 64

// indexFrom is the number of members from which an object's are looked up
// through a map rather than one by one.
const indexFrom = 16

// NewFields reads data as a JSON object at path.
func NewFields(path string, data []byte) *Fields { return newFields(path, data, false) }

// NewFieldsWellFormed is NewFields for data known to be well-formed JSON:
// a value a Fields split (canon.MemberList and canon.Elements split only
// well-formed values, encoding/json's Unmarshal only decodes such), or a
// document canon.Check accepted. Its members' values are then split
// without their strings being read byte by byte again
// (canon.MemberListValid).
func NewFieldsWellFormed(path string, data []byte) *Fields { return newFields(path, data, true) }

// newFields is NewFields, or NewFieldsWellFormed when wellFormed is set: a value a Fields split (canon.MemberList and
// canon.Elements split only well-formed values, encoding/json's Unmarshal
// only decodes such), or a document canon.Check accepted. Its members'
// values are then split without their strings being read byte by byte
// again (canon.MemberListValid).
func newFields(path string, data []byte, wellFormed bool) *Fields {
	f := &Fields{path: path}
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		f.err = &canon.PathError{Path: path, Msg: "want an object"}
		return f
	}
	// canon.MemberList splits a well-formed object in one pass; anything
	// else is decoded the long way, which words the error.
	split := canon.MemberList
	if wellFormed {
		split = canon.MemberListValid
	}
	pooled := memberLists.Get().(*[]canon.Member)
	if list, ok := split(data, (*pooled)[:0]); ok {
		f.members = list
		f.pooled = pooled
	} else {
		clear((*pooled)[:cap(*pooled)])
		memberLists.Put(pooled)
		var m map[string]json.RawMessage
		if err := json.Unmarshal(data, &m); err != nil {
			f.err = &canon.PathError{Path: path, Msg: err.Error()}
			return f
		}
		for k, v := range m {
			f.members = append(f.members, canon.Member{Key: []byte(k), Value: v})
		}
	}
	if len(f.members) > 64 {
		f.usedMore = make([]bool, len(f.members)-64)
	}
	if len(f.members) >= indexFrom {
		f.index = make(map[string]int, len(f.members))
		for i, m := range f.members {
			f.index[string(m.Key)] = i
		}
	}
	return f
}

// find returns the index of key's member, or -1.
func (f *Fields) find(key string) int {
	if f.index != nil {
		if i, ok := f.index[key]; ok {
			return i
		}
		return -1
	}
	for i := range f.members {
		if string(f.members[i].Key) == key {
			return i
		}
	}
	return -1
}

func (f *Fields) isUsed(i int) bool {
	if i < 64 {
		return f.used&(1<<i) != 0
	}
	return f.usedMore[i-64]
}

func (f *Fields) markUsed(i int) {
	if i < 64 {
		f.used |= 1 << i
	} else {
		f.usedMore[i-64] = true
	}
}

// Rename names the object by path from here on (a list element by its id,
// once that is read).
func (f *Fields) Rename(path string) { f.path = path }

// Path joins the object's path and key.
func (f *Fields) Path(key string) string {
	if f.path == "" {
		return key
	}
	return f.path + "." + key
}

// Keys returns the object's keys, sorted: for an object whose keys are
// names of the config's choosing (env, vars).
func (f *Fields) Keys() []string {
	keys := make([]string, 0, len(f.members))
	for _, m := range f.members {
		keys = append(keys, string(m.Key))
	}
	sort.Strings(keys)
	return keys
}

// Has reports whether key is present.
func (f *Fields) Has(key string) bool { return f.find(key) >= 0 }

// Raw returns key's raw value, marking it read.
func (f *Fields) Raw(key string) (json.RawMessage, bool) {
	i := f.find(key)
	if i < 0 {
		return nil, false
	}
	f.markUsed(i)
	return f.members[i].Value, true
}

// Req decodes the required field key into v.
func (f *Fields) Req(key string, v any) {
	if f.err != nil {
		return
	}
	if !f.Has(key) {
		f.err = &canon.PathError{Path: f.Path(key), Msg: "required field missing"}
		return
	}
	f.Opt(key, v)
}

// Opt decodes key into v when it is present.
func (f *Fields) Opt(key string, v any) {
	if f.err != nil {
		return
	}
	raw, ok := f.Raw(key)
	if !ok {
		return
	}
	// A field's value is well-formed: Fields split it.
	switch d := v.(type) {
	case WellFormedDecoder:
		f.err = d.DecodeWellFormed(f.Path(key), raw)
		return
	case FieldDecoder:
		f.err = d.DecodeField(f.Path(key), raw)
		return
	case *[]json.RawMessage:
		if list, ok := canon.ElementsValid(raw); ok {
			*d = list
			return
		}
	}
	if err := Decode(raw, v); err != nil {
		f.err = wrapPath(f.Path(key), err)
	}
}

// List decodes the list at key one element at a time, handing each element
// its path (key[i]) so that its errors can name where it sits. An error each
// returns as a *canon.PathError is taken to name its full path; any other is
// given the element's. A required list must be present.
func (f *Fields) List(key string, required bool, each func(path string, raw json.RawMessage) error) {
	f.list(key, required, nil, func(_ int, path string, raw json.RawMessage) error { return each(path, raw) })
}

// list is List, handing start, when it isn't nil, the number of elements
// before the first, and each its element's index.
func (f *Fields) list(key string, required bool, start func(n int), each func(i int, path string, raw json.RawMessage) error) {
	if f.err != nil {
		return
	}
	if required && !f.Has(key) {
		f.err = &canon.PathError{Path: f.Path(key), Msg: "required field missing"}
		return
	}
	raw, ok := f.Raw(key)
	if !ok {
		return
	}
	// A field's value is well-formed: Fields split it. Anything but a
	// list goes the long way, which words the error.
	list, ok := canon.ElementsValid(raw)
	if !ok {
		if err := Decode(raw, &list); err != nil {
			f.err = wrapPath(f.Path(key), err)
			return
		}
	}
	if start != nil {
		start(len(list))
	}
	for i, item := range list {
		at := fmt.Sprintf("%s[%d]", f.Path(key), i)
		if err := each(i, at, item); err != nil {
			var pe *canon.PathError
			if !errors.As(err, &pe) {
				err = &canon.PathError{Path: at, Msg: err.Error()}
			}
			f.err = err
			return
		}
	}
}

// ListOf decodes the list at key into *list as List does, each element
// decoding itself (its pointer is a FieldDecoder). A required list starts
// empty, never nil; an optional one absent or empty leaves *list as it is.
func ListOf[T any, P interface {
	*T
	FieldDecoder
}](f *Fields, key string, required bool, list *[]T) {
	decodeList(f, tagField{key: key, required: required}, reflect.ValueOf(list).Elem())
}

// ReqNew decodes the required field key into a new T that *p is set to.
func ReqNew[T any](f *Fields, key string, p **T) {
	*p = new(T)
	f.Req(key, *p)
}

// MapOf returns the decoder of an object into *m, each member's value
// decoded as Req decodes a field; *m is set once every member decodes.
func MapOf[V any](m *map[string]V) FieldDecoder { return mapDecoder{reflect.ValueOf(m).Elem()} }

// OptNew decodes key, when it is present, into a new T that *p is set to,
// so that a field given and one left out stay apart.
func OptNew[T any](f *Fields, key string, p **T) {
	if f.Has(key) {
		*p = new(T)
		f.Opt(key, *p)
	}
}

// FieldDecoder is a value that decodes itself knowing its path, so its
// errors name where it sits in the document.
type FieldDecoder interface {
	DecodeField(path string, raw json.RawMessage) error
}

// WellFormedDecoder is a FieldDecoder with a second way in, for raw known
// to be well-formed JSON (see NewFieldsWellFormed): the same decoding, the
// same errors.
type WellFormedDecoder interface {
	FieldDecoder
	DecodeWellFormed(path string, raw json.RawMessage) error
}

// Fail records err for the field key unless an error is already recorded.
func (f *Fields) Fail(key string, err error) {
	if f.err == nil {
		f.err = wrapPath(f.Path(key), err)
	}
}

// Err returns the first error recorded so far.
func (f *Fields) Err() error { return f.err }

// Record records err, which names its own path, unless an error is already
// recorded.
func (f *Fields) Record(err error) {
	if f.err == nil {
		f.err = err
	}
}

// Done returns the first error, or an unknown field. It ends the reading
// of the object: f reads no field after it (Has is false for every key),
// and a second Done returns what the first did.
func (f *Fields) Done() error {
	if f.err == nil {
		first := -1
		for i, m := range f.members {
			if !f.isUsed(i) && (first < 0 || string(m.Key) < string(f.members[first].Key)) {
				first = i
			}
		}
		if first >= 0 {
			f.err = &canon.PathError{Path: f.Path(string(f.members[first].Key)), Msg: "unknown field"}
		}
	}
	f.release()
	return f.err
}

// release gives f's member list back to memberLists, emptied (it holds
// slices of the document) and no longer f's.
func (f *Fields) release() {
	members, pooled := f.members, f.pooled
	f.members, f.index, f.pooled = nil, nil, nil
	if pooled == nil || cap(members) > maxPooledMembers {
		return
	}
	clear(members)
	*pooled = members[:0]
	memberLists.Put(pooled)
}

func wrapPath(path string, err error) error {
	var pe *canon.PathError
	if errors.As(err, &pe) {
		p := path
		if pe.Path != "" && pe.Path != "(document)" {
			p = path + "." + pe.Path
		}
		return &canon.PathError{Path: p, Msg: pe.Msg}
	}
	return &canon.PathError{Path: path, Msg: err.Error()}
}
