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
}

// File is a regular file with managed content.
type File struct {
	Path     Text     `json:"path"`
	Content  Content  `json:"content"`
	Mode     string   `json:"mode,omitempty"`
	Owner    string   `json:"owner,omitempty"`
	Group    string   `json:"group,omitempty"`
	Triggers []string `json:"triggers,omitempty"`
	Validate *Text    `json:"validate,omitempty"`
}

// Content is a file's content source, selected by Type.
type Content struct {
	Type ContentType `json:"type"`
	// Inline is the content of an inline source, installed as declared.
	Inline *string `json:"content,omitempty"`
}

// Directory is a directory with optional managed permissions.
type Directory struct {
	Path  Text   `json:"path"`
	Mode  string `json:"mode,omitempty"`
	Owner string `json:"owner,omitempty"`
	Group string `json:"group,omitempty"`
}

// Link is a symbolic link at Path pointing to Target.
type Link struct {
	Path   Text `json:"path"`
	Target Text `json:"target"`
}

// Script is a command guarded by an idempotency check.
type Script struct {
	Check Text            `json:"check"`
	Run   Text            `json:"run"`
	Cwd   string          `json:"cwd,omitempty"`
	Env   map[string]Text `json:"env,omitempty"`
}

// Read decodes a declaration strictly. It does not run Validate.
func Read(data []byte) (*Declaration, error) {
	if err := checkFormat(data, Format); err != nil {
		return nil, err
	}
	if err := canon.Check(data, nil); err != nil {
		return nil, err
	}
	var d Declaration
	if err := DecodeStrict(data, &d); err != nil {
		return nil, err
	}
	return &d, nil
}

// Encode writes d in canonical form.
func (d *Declaration) Encode() ([]byte, error) { return canon.Marshal(d) }

// checkFormat requires "format" as the first field with the wanted value.
func checkFormat(data []byte, want string) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return errors.New("not a JSON object")
	}
	tok, err := dec.Token()
	if err != nil || tok != "format" {
		return fmt.Errorf("format: the document's first field must be \"format\" (want %q)", want)
	}
	var got string
	if err := dec.Decode(&got); err != nil {
		return errors.New("format: want a string")
	}
	if got != want {
		return fmt.Errorf("format: this reader reads %q, not %q", want, got)
	}
	return nil
}

// CheckFormat is checkFormat for the other document packages.
func CheckFormat(data []byte, want string) error { return checkFormat(data, want) }

// DecodeStrict decodes data into v refusing unknown fields and trailing data,
// and rewrites encoding/json's errors to name the field's path.
func DecodeStrict(data []byte, v any) error {
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

func fieldError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "(document)"
		}
		return &canon.PathError{Path: field, Msg: fmt.Sprintf("want %s, not a JSON %s", te.Type, te.Value)}
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
