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
	"encoding/json"

	"github.com/zap-go/zap/internal/strict"
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
	// Whether the target is the machine Zap runs on (true), not a host
	// over SSH; a local target takes none of host, user, port, identity,
	// home and bootstrap_user.
	Local bool `json:"local,omitempty" zap:"instead=local"`
	// The host name or address ssh connects to. Takes a reference.
	Host *Text `json:"host,omitempty"`
	// The account ssh connects as; without it ssh chooses. Takes a
	// reference.
	User *Text `json:"user,omitempty"`
	// The SSH port, 1 to 65535.
	Port int `json:"port,omitempty" zap:"instead=port,port"`
	// An identity file passed to ssh. Takes no reference.
	Identity string `json:"identity,omitempty" zap:"instead=identity"`
	// The connecting user's home on the host, absolute. A remote path that
	// uses ~ or $HOME with no home declared is undetermined.
	Home string `json:"home,omitempty" zap:"instead=home"`
	// The account the first, --bootstrap, run connects as, before the
	// config's own hardening changes who may log in. Takes a reference.
	BootstrapUser *Text `json:"bootstrap_user,omitempty"`
	// Which entry of a package's `from` applies here, and how packages are
	// installed and queried.
	PackageManager string `json:"package_manager,omitempty" zap:"instead=package_manager" ts:"PackageManager"`
	// Required when the config declares a service, a file with triggers,
	// or deploy.service.
	ServiceManager string `json:"service_manager,omitempty" zap:"instead=service_manager" ts:"ServiceManager"`
}

// Common is the fields every resource takes.
type Common struct {
	// A stable name for the resource, unique in the config: what
	// depends_on, triggers, restart_on and reload_on refer to, and what Zap's
	// plans, reports and events call it. Takes no reference.
	ID   string `json:"id" zap:"instead=id"`
	Type Kind   `json:"type" zap:"-"`
	// A display name for output.
	Name string `json:"name,omitempty" zap:"instead=name"`
	// Ids of resources that must apply before this one. Declaration order
	// is not an order: without an edge, resources apply by id.
	DependsOn []string `json:"depends_on,omitempty" zap:"instead=ids"`
}

// Resource is one typed piece of desired state: the common fields and one
// body, the kind's fields, of the kind Type names. Its JSON is flat: the
// common fields and the body's side by side in one object.
type Resource struct {
	Common
	// Body is the kind's fields: a *File for a file, and so on (bodies
	// lists them). BodyOf reads it as one kind's.
	Body Body `json:"-"`
}

// ErrFormat is a document whose first field isn't "format" naming, as a
// string, the format its reader reads: every refusal of Read's for its
// format (and of the other documents' readers) wraps it. One naming another
// format is an *OtherFormatError.
var ErrFormat = strict.ErrFormat

// OtherFormatError is a document of another format than its reader reads:
// another kind of document, or one another version of Zap wrote. It wraps
// ErrFormat.
type OtherFormatError = strict.OtherFormatError

// Read decodes a declaration strictly. It does not run Validate.
func Read(data []byte) (*Declaration, error) {
	var d Declaration
	if err := strict.Read(data, Format, NullInVars, &d, "resources"); err != nil {
		return nil, err
	}
	return &d, nil
}

var varsPath = newPattern(`(^|\.)(resources\[[0-9]+\]|resource)\.content\.vars\.`)

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
