// Package declaration is the document zap-eval writes: the desired state of
// one target, as a config declared it.
//
// A declaration is JSON whose first field is "format": "zap.declaration/1".
// Read decodes one strictly: an unknown field, a field given twice, a null, a
// value of the wrong JSON type or a format this package doesn't read is an
// error naming the field's path. Validate then runs the form checks and the
// structural gate, so a Declaration that passed both is one every stage can
// act on. docs/protocol.md documents every field.
package declaration

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/zap-go/zap/pkg/canon"
)

// Format is the format name and version this package reads and writes.
const Format = "zap.declaration/1"

// Declaration is one config's desired state.
type Declaration struct {
	Format    string     `json:"format"`
	Target    Target     `json:"target"`
	Resources []Resource `json:"resources"`
	// Mask and Unmask name variables the config said are, or are not,
	// secrets (zap.mask, zap.unmask).
	Mask   []string `json:"mask,omitempty"`
	Unmask []string `json:"unmask,omitempty"`
	// Deploy is the deploy block (zap.deploy), when the config declares one.
	Deploy *Deploy `json:"deploy,omitempty"`
}

// Target is where the config acts: the local machine, or a host over SSH.
type Target struct {
	Local bool `json:"local,omitempty"`
	// Host, User, Port, Identity, Home and BootstrapUser describe a remote
	// target.
	Host           *Text  `json:"host,omitempty"`
	User           *Text  `json:"user,omitempty"`
	Port           int    `json:"port,omitempty"`
	Identity       string `json:"identity,omitempty"`
	Home           string `json:"home,omitempty"`
	BootstrapUser  *Text  `json:"bootstrap_user,omitempty"`
	PackageManager string `json:"package_manager,omitempty"`
	ServiceManager string `json:"service_manager,omitempty"`
}

// Common holds the fields every resource takes.
type Common struct {
	ID        string   `json:"id"`
	Type      Kind     `json:"type"`
	Name      string   `json:"name,omitempty"`
	DependsOn []string `json:"depends_on,omitempty"`
}

// Resource is one typed piece of desired state. Exactly one of the kind
// pointers is set, the one Type names. Its JSON is flat: the common fields
// and the kind's fields side by side in one object.
type Resource struct {
	Common
	File      *File      `json:"-"`
	Directory *Directory `json:"-"`
	Link      *Link      `json:"-"`
	Script    *Script    `json:"-"`
	Package   *Package   `json:"-"`
	AptRepo   *AptRepo   `json:"-"`
	Installer *Installer `json:"-"`
	User      *User      `json:"-"`
	Service   *Service   `json:"-"`
	Database  *Database  `json:"-"`
	Swap      *Swap      `json:"-"`
	Firewall  *Firewall  `json:"-"`
	Verify    *Verify    `json:"-"`
	Pipeline  *Pipeline  `json:"-"`
	Build     *Build     `json:"-"`
}

// Read decodes a declaration strictly. It does not run Validate.
func Read(data []byte) (*Declaration, error) {
	if err := checkFormat(data, Format); err != nil {
		return nil, err
	}
	if err := canon.Check(data, NullInVars); err != nil {
		return nil, NameByID(err, data, "resources")
	}
	var d Declaration
	if err := DecodeChecked(data, &d); err != nil {
		return nil, err
	}
	return &d, nil
}

var varsPath = regexp.MustCompile(`(^|\.)(resources\[[0-9]+\]|resource)\.content\.vars\.`)

// NullInVars reports whether path is inside a template variable's value, the
// one place a declaration holds null as data: a resource's content.vars in a
// declaration's resources list, or in a resource embedded as "resource"
// (a plan's change). Readers of documents embedding either hand it to
// canon.Check as its allowNull.
func NullInVars(path string) bool { return varsPath.MatchString(path) }

// MarshalJSON writes d's object with a missing resources list as [], never
// null, so that what Encode writes Read accepts. It writes the canonical
// bytes Encode writes (so a document embedding a declaration, such as
// observations, has them spelled without reflection), and what that
// doesn't spell through encoding/json, which words the error.
func (d Declaration) MarshalJSON() ([]byte, error) {
	if out, ok := d.appendCanonical(nil); ok {
		return out, nil
	}
	type plain Declaration
	p := plain(d)
	if p.Resources == nil {
		p.Resources = []Resource{}
	}
	return json.Marshal(p)
}

// ErrFormat is a document whose first field isn't "format" naming, as a
// string, the format its reader reads: every refusal of CheckFormat (and
// Read's) wraps it. One naming another format is an *OtherFormatError.
var ErrFormat = errors.New("format")

// OtherFormatError is a document of another format than its reader reads:
// another kind of document, or one another version of Zap wrote. It wraps
// ErrFormat.
type OtherFormatError struct {
	// Want is the format the reader reads, Got the one the document names.
	Want, Got string
}

func (e *OtherFormatError) Error() string {
	return fmt.Sprintf("%v: this reader reads %q, not %q", ErrFormat, e.Want, e.Got)
}

func (e *OtherFormatError) Unwrap() error { return ErrFormat }

// checkFormat requires "format" as the first field with the wanted value.
func checkFormat(data []byte, want string) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return errors.New("not a JSON object")
	}
	tok, err := dec.Token()
	if err != nil || tok != "format" {
		return fmt.Errorf("%w: the document's first field must be \"format\" (want %q)", ErrFormat, want)
	}
	var raw json.RawMessage
	var got string
	if err := dec.Decode(&raw); err != nil || string(raw) == "null" || json.Unmarshal(raw, &got) != nil {
		return fmt.Errorf("%w: want a string (%q)", ErrFormat, want)
	}
	if got != want {
		return &OtherFormatError{Want: want, Got: got}
	}
	return nil
}

// NameByID rewrites a *canon.PathError whose path runs through an element of
// one of lists (each the path of a list of objects carrying an "id", such as
// "resources"), so that it names the element as Read's own errors do:
// resources[0] (hello).mode rather than resources[0].mode. canon.Check knows
// no ids; a reader runs its error through this. Other errors, and paths
// through an element with no string id, are returned as they are.
func NameByID(err error, data []byte, lists ...string) error {
	var pe *canon.PathError
	if !errors.As(err, &pe) {
		return err
	}
	for _, list := range lists {
		rest, ok := strings.CutPrefix(pe.Path, list+"[")
		if !ok {
			continue
		}
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			continue
		}
		i, convErr := strconv.Atoi(rest[:end])
		if convErr != nil {
			continue
		}
		id, ok := idAt(data, list, i)
		if !ok {
			return err
		}
		return &canon.PathError{Path: fmt.Sprintf("%s[%d] (%s)%s", list, i, id, rest[end+1:]), Msg: pe.Msg}
	}
	return err
}

// idAt returns the string id of element i of the list at path in data, read
// leniently (data may be a document canon.Check refused).
func idAt(data []byte, path string, i int) (string, bool) {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return "", false
	}
	for _, key := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return "", false
		}
		v = m[key]
	}
	list, ok := v.([]any)
	if !ok || i >= len(list) {
		return "", false
	}
	obj, ok := list[i].(map[string]any)
	if !ok {
		return "", false
	}
	id, ok := obj["id"].(string)
	return id, ok && id != ""
}

// CheckFormat is checkFormat for the other document packages.
func CheckFormat(data []byte, want string) error { return checkFormat(data, want) }

// DecodeStrict decodes data into v refusing unknown fields (a key must match
// a field's JSON name exactly, case included) and trailing data, and rewrites
// encoding/json's errors to name the field's path.
func DecodeStrict(data []byte, v any) error { return decodeStrict(data, v, false) }

// DecodeChecked is DecodeStrict for data canon.Check accepted, which is
// one well-formed JSON value: the validity check DecodeStrict makes before
// handing a document that decodes itself its bytes isn't made again.
func DecodeChecked(data []byte, v any) error { return decodeStrict(data, v, true) }

func decodeStrict(data []byte, v any, checked bool) error {
	// The quick ways, for what they decide; anything else goes the strict
	// way, which decides it and words the error. A list of raw elements
	// has no key to refuse: canon.Elements splits a well-formed one. A
	// value with no object anywhere in its type (a string, a number, a
	// list of strings) has none either: encoding/json's Unmarshal decodes
	// it as the strict decoder would.
	if l, ok := v.(*[]json.RawMessage); ok {
		if e, ok := canon.Elements(data); ok {
			*l = e
			return nil
		}
	} else if s, ok := v.(*string); ok && s != nil {
		if q, ok := canon.Unquote(data); ok {
			*s = q
			return nil
		}
		if json.Unmarshal(data, v) == nil {
			return nil
		}
	} else if quickPlain(data, v) {
		return nil
	} else if t := reflect.TypeOf(v); t != nil && plainType(t) && json.Unmarshal(data, v) == nil {
		return nil
	} else if u, ok := v.(json.Unmarshaler); ok {
		// An object that decodes itself (a document, strictly by its
		// Fields): encoding/json would scan it three times over (read,
		// check, skip) only to hand it the same bytes. One check that
		// data is exactly one well-formed value does what they decide.
		if obj := bytes.TrimSpace(data); len(obj) > 0 && obj[0] == '{' && nonNilPointer(v) && (checked || json.Valid(data)) {
			// obj is well-formed: one that decodes itself knowing so
			// splits it without reading its strings twice.
			var err error
			if w, ok := v.(wellFormedDecoder); ok {
				err = w.decodeWellFormed("", obj)
			} else {
				err = u.UnmarshalJSON(obj)
			}
			if err != nil {
				return fieldError(err)
			}
			return nil
		}
	}
	if t := reflect.TypeOf(v); t != nil {
		if err := exactKeys(data, t, ""); err != nil {
			return err
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fieldError(err)
	}
	if dec.More() {
		return errors.New("data after the document")
	}
	return nil
}

// quickPlain decodes the plain values a declaration holds most (a kind, a
// content type, a list of strings) as encoding/json's Unmarshal would,
// without its reflection; false, having set nothing, for anything else.
func quickPlain(data []byte, v any) bool {
	switch x := v.(type) {
	case *Kind:
		if s, ok := canon.Unquote(data); ok && x != nil {
			*x = Kind(s)
			return true
		}
	case *ContentType:
		if s, ok := canon.Unquote(data); ok && x != nil {
			*x = ContentType(s)
			return true
		}
	case *[]string:
		if x == nil {
			return false
		}
		list, ok := canon.Elements(data)
		if !ok {
			return false
		}
		out := make([]string, len(list))
		for i, raw := range list {
			if out[i], ok = canon.Unquote(raw); !ok {
				return false
			}
		}
		*x = out
		return true
	}
	return false
}

func nonNilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && !rv.IsNil()
}

func fieldError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "(document)"
		}
		return &canon.PathError{Path: field, Msg: fmt.Sprintf("want %s, not a JSON %s", jsonKind(te.Type), te.Value)}
	}
	var pe *canon.PathError
	if errors.As(err, &pe) {
		return pe
	}
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return &canon.PathError{Msg: "unknown field " + rest}
	}
	return errors.New(strings.TrimPrefix(msg, "json: "))
}

// jsonKind names the JSON a Go type decodes from, for messages: "list", not
// "[]json.RawMessage". Scalars keep the short names encoding/json gives them
// (string, int, bool), which stage messages already print.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "int"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "list"
	case reflect.Map, reflect.Struct:
		return "object"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return t.Kind().String()
}

// plainType reports whether t is a pointer to a value with no object in its
// type and no decoder of its own: a string, bool or number, or a list of
// them.
func plainType(t reflect.Type) bool {
	if t.Kind() != reflect.Pointer {
		return false
	}
	t = t.Elem()
	for {
		if t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType) {
			return false
		}
		switch t.Kind() {
		case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			return true
		case reflect.Slice:
			t = t.Elem()
		default:
			return false
		}
	}
}
