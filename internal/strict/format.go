package strict

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/zap-go/zap/pkg/canon"
)

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

// CheckFormat requires "format" as the first field of the document with
// the wanted value.
func CheckFormat(data []byte, want string) error {
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
