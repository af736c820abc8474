// Package observation is the document zap-detect writes: what one detection
// pass read on the target, resource by resource, with the declaration it read
// against.
//
// Its first field is "format": "zap.observations/1". It carries the whole
// declaration it was made for, so zap-plan can read one document from a pipe
// (zap-eval zap.ts | zap-detect | zap-plan). Read decodes strictly and runs
// the declaration's Validate. docs/protocol.md documents every field.
package observation

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/zap-go/zap/internal/strict"
	"github.com/zap-go/zap/pkg/canon"
	"github.com/zap-go/zap/pkg/declaration"
)

// Format is the format name and version this package reads and writes.
const Format = "zap.observations/1"

// Verdict is detection's answer for one resource: does the desired state
// already exist?
type Verdict string

// The four verdicts.
const (
	Converged    Verdict = "converged"    // the desired state exists
	Drifted      Verdict = "drifted"      // it exists but differs
	Absent       Verdict = "absent"       // it doesn't exist
	Undetermined Verdict = "undetermined" // it couldn't be read: held
)

// Lane is the privilege a batch of reads ran under.
type Lane string

// The lanes.
const (
	LaneLogin    Lane = "login"    // the connecting user (locally: the operator)
	LaneRoot     Lane = "root"     // root on every connection
	LaneElevated Lane = "elevated" // root over SSH; locally the operator, then sudo for denied reads
)

// Observations is one detection pass.
type Observations struct {
	Format      string                  `json:"format"`
	Declaration declaration.Declaration `json:"declaration"`
	Context     Context                 `json:"context"`
	// References lists every variable the declaration references, sorted by
	// name: a plain one with its value, a secret one only as a secret.
	References []Reference `json:"references,omitempty"`
	// Unresolved names the referenced variables that are unset or empty:
	// the pass's comparison is unverifiable while any is listed.
	Unresolved []string   `json:"unresolved,omitempty"`
	Batches    []Batch    `json:"batches"`
	Resources  []Resource `json:"resources"`
	// Pending lists the pending-trigger markers the pass read on the
	// target (/var/lib/zap/pending), sorted by service: the restart or
	// reload an earlier run owed a service and didn't complete. They are
	// read only for a config that declares a trigger.
	Pending []Marker `json:"pending,omitempty"`
	// Warnings are what the pass noticed that is no resource's verdict
	// (a marker for a service the config doesn't manage), one sentence
	// each.
	Warnings []string `json:"warnings,omitempty"`
}

// TriggerAction is what a trigger does to a running service.
type TriggerAction string

// The trigger actions. A restart outranks a reload.
const (
	Restart TriggerAction = "restart"
	Reload  TriggerAction = "reload"
)

// Outranks reports whether a is the stronger of the two actions: a restart
// outranks a reload, and any action outranks none ("").
func (a TriggerAction) Outranks(b TriggerAction) bool {
	return a == Restart && b != Restart || a == Reload && b == ""
}

// Marker is one pending-trigger marker: the service (its name, as the
// service manager knows it, which is the marker's file name) and the action
// it is owed.
type Marker struct {
	Service string        `json:"service"`
	Action  TriggerAction `json:"action"`
}

// Context names the machine and account the pass read as. It is part of the
// plan and its hash.
type Context struct {
	// Target is "local", or the remote host the target resolved to.
	Target string `json:"target"`
	// User is the account Zap runs as locally, or the connecting user over
	// SSH ("" when ssh chooses).
	User string `json:"user"`
	// Home is what ~ and $HOME resolve to on the target: the operator's
	// HOME locally, the declared home remotely ("" when none is declared).
	Home string `json:"home,omitempty"`
	// Bootstrap says a remote pass connected as the target's
	// bootstrap_user (--bootstrap): a plan made so has another plan_hash
	// than one made as user, even when the two name the same account.
	Bootstrap bool `json:"bootstrap,omitempty"`
}

// Reference is what one referenced variable resolved to.
type Reference struct {
	Name   string `json:"name"`
	Secret bool   `json:"secret,omitempty"`
	// Value is a plain reference's value; a secret's is never written.
	Value string `json:"value,omitempty"`
}

// Batch is one batch of reads the pass ran.
type Batch struct {
	Lane    Lane `json:"lane"`
	Queries int  `json:"queries"`
}

// Resource is the verdict for one declared resource.
type Resource struct {
	ID      string  `json:"id"`
	Verdict Verdict `json:"verdict"`
	// Reason says why an undetermined resource couldn't be read.
	Reason string `json:"reason,omitempty"`
	// Drift lists, for a drifted resource, each attribute that differs.
	Drift []Difference `json:"drift,omitempty"`
	// Fingerprint is, for a drifted resource of a kind whose state holds
	// more than its drift shows (a file: its content), that state as a
	// keyed fingerprint (detect.Fingerprint), 64 lowercase hex digits; a
	// plan carries it so that zap-exec can refuse to act on a target that
	// moved since. Never the state's own digest.
	Fingerprint string `json:"fingerprint,omitempty"`
	// Pin is, for a resource that fetches (a remote file, an apt_repo's
	// key, a build's source), the blake3 pin its reads compared against,
	// vendored in the config or from zap.lock: 64 lowercase hex digits. A
	// plan carries it to the steps that place the pinned bytes.
	Pin string `json:"pin,omitempty"`
	// Diff is, under zap-detect --diff, for a file whose content would
	// change, the unified diff from the target's bytes to the declared
	// ones, every secret masked, or the one line that stands for it
	// (binary or large, content withheld, not shown). Display only:
	// zap-plan reads past it, so no plan or plan_hash depends on it.
	Diff string `json:"diff,omitempty"`
}

// ValidFingerprint reports whether s is a fingerprint's form: 64 lowercase
// hex digits.
func ValidFingerprint(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Difference is one attribute of a drifted resource: what the target has
// and what the declaration wants, as display text.
type Difference struct {
	Field    string `json:"field"`
	Observed string `json:"observed"`
	Desired  string `json:"desired"`
}

// Read decodes observations strictly and validates the declaration they
// carry and their agreement with it: one result per declared resource, in
// declaration order, each with a known verdict.
func Read(data []byte) (*Observations, error) {
	return read(data, nil)
}

// ReadKnown is Read for observations of a declaration the caller has
// already read and validated: d, read from declJSON. When the observations
// carry that declaration byte for byte (zap-detect writes the declaration
// it was given as it was given), it isn't decoded and validated a second
// time: the observations' declaration is a copy of *d, sharing its lists
// and maps, which neither may change afterwards. Any other declaration is
// read as Read reads it; everything else in data is read as Read reads it.
func ReadKnown(data []byte, d *declaration.Declaration, declJSON []byte) (*Observations, error) {
	return read(data, &knownDecl{decl: d, json: bytes.TrimSpace(declJSON)})
}

// knownDecl is a declaration already read, and the bytes it was read from.
type knownDecl struct {
	decl *declaration.Declaration
	json []byte
}

func read(data []byte, known *knownDecl) (*Observations, error) {
	var o Observations
	r := &reader{o: &o, known: known}
	if err := strict.Read(data, Format, declaration.NullInVars, r, "resources", "declaration.resources"); err != nil {
		return nil, err
	}
	if err := o.validate(!r.reused); err != nil {
		return nil, err
	}
	return &o, nil
}

// reader decodes observations, taking a known declaration as it is.
type reader struct {
	o     *Observations
	known *knownDecl
	// reused is true when the declaration was the known one.
	reused bool
}

func (r *reader) UnmarshalJSON(data []byte) error { return r.DecodeField("", data) }

// DecodeField decodes the observations, the declaration by declReader.
func (r *reader) DecodeField(path string, raw json.RawMessage) error {
	return r.o.decodeField(path, raw, false, (*declReader)(r))
}

// DecodeWellFormed is DecodeField for raw known to be well-formed (strict
// hands it a document canon.Check accepted).
func (r *reader) DecodeWellFormed(path string, raw json.RawMessage) error {
	return r.o.decodeField(path, raw, true, (*declReader)(r))
}

// declReader decodes the observations' declaration, which the reader may
// already know.
type declReader reader

func (r *declReader) DecodeField(path string, raw json.RawMessage) error {
	return r.decode(path, raw, false)
}

// DecodeWellFormed is DecodeField for a value strict.Fields split, which is
// well-formed: its strings aren't read byte by byte again.
func (r *declReader) DecodeWellFormed(path string, raw json.RawMessage) error {
	return r.decode(path, raw, true)
}

func (r *declReader) decode(path string, raw json.RawMessage, wellFormed bool) error {
	if r.known != nil && r.known.decl != nil && bytes.Equal(bytes.TrimSpace(raw), r.known.json) {
		*r.decl() = *r.known.decl
		r.reused = true
		return nil
	}
	if wellFormed {
		return r.decl().DecodeWellFormed(path, raw)
	}
	return r.decl().DecodeField(path, raw)
}

func (r *declReader) decl() *declaration.Declaration { return &r.o.Declaration }

// Validate checks the observations agree with their declaration.
func (o *Observations) Validate() error { return o.validate(true) }

// validate is Validate, checking the declaration itself only when decl is
// true (a declaration ReadKnown took as known was validated by its reader).
func (o *Observations) validate(decl bool) error {
	if o.Format != Format {
		return fmt.Errorf("format: want %q", Format)
	}
	if decl {
		if err := o.Declaration.Validate(); err != nil {
			return fmt.Errorf("declaration: %w", err)
		}
	}
	if len(o.Resources) != len(o.Declaration.Resources) {
		return fmt.Errorf("resources: %d verdicts for %d declared resources", len(o.Resources), len(o.Declaration.Resources))
	}
	for i, r := range o.Resources {
		if want := o.Declaration.Resources[i].ID; r.ID != want {
			return fmt.Errorf("resources[%d].id: %q, but the declaration's resource %d is %q", i, r.ID, i, want)
		}
		if r.Fingerprint != "" && (r.Verdict != Drifted || !ValidFingerprint(r.Fingerprint)) {
			return fmt.Errorf("resources[%d] (%s).fingerprint: 64 lowercase hex digits, for a drifted resource only", i, r.ID)
		}
		if r.Diff != "" && r.Verdict != Drifted && r.Verdict != Absent {
			return fmt.Errorf("resources[%d] (%s).diff: for a drifted or absent resource only", i, r.ID)
		}
		if r.Pin != "" {
			if _, fetches := o.Declaration.Resources[i].Fetched(); !fetches || !ValidFingerprint(r.Pin) {
				return fmt.Errorf("resources[%d] (%s).pin: 64 lowercase hex digits, for a resource that fetches only", i, r.ID)
			}
		}
		switch r.Verdict {
		case Converged, Drifted, Absent:
		case Undetermined:
			if r.Reason == "" {
				return fmt.Errorf("resources[%d] (%s): an undetermined verdict needs a reason", i, r.ID)
			}
		default:
			return fmt.Errorf("resources[%d] (%s).verdict: unknown verdict %q", i, r.ID, r.Verdict)
		}
	}
	for i, m := range o.Pending {
		if m.Service == "" {
			return fmt.Errorf("pending[%d].service: empty", i)
		}
		if i > 0 && o.Pending[i-1].Service >= m.Service {
			return fmt.Errorf("pending[%d] (%s): the markers must be sorted by service, each once", i, m.Service)
		}
		if m.Action != Restart && m.Action != Reload {
			return fmt.Errorf("pending[%d] (%s).action: %q is neither restart nor reload", i, m.Service, m.Action)
		}
	}
	for i, b := range o.Batches {
		switch b.Lane {
		case LaneLogin, LaneRoot, LaneElevated:
		default:
			return fmt.Errorf("batches[%d].lane: unknown lane %q", i, b.Lane)
		}
	}
	return nil
}

// Encode writes o in canonical form.
func (o *Observations) Encode() ([]byte, error) { return canon.Marshal(o) }

// MarshalJSON writes o's object with a missing batches or resources list as
// [], never null, so that what Encode writes Read accepts.
func (o Observations) MarshalJSON() ([]byte, error) {
	type plain Observations
	p := plain(o)
	if p.Batches == nil {
		p.Batches = []Batch{}
	}
	if p.Resources == nil {
		p.Resources = []Resource{}
	}
	return json.Marshal(p)
}

// DecodeField decodes observations strictly at path (for documents that
// embed them). Every error names the field's path, a list element by its
// index and, for a resource, its id: resources[2] (motd).verdict.
func (o *Observations) DecodeField(path string, raw json.RawMessage) error {
	return o.decodeField(path, raw, false, nil)
}

// DecodeWellFormed is DecodeField for raw known to be well-formed JSON (a
// document canon.Check accepted, a value strict.Fields split): the same
// decoding and errors, its strings not read byte by byte again.
func (o *Observations) DecodeWellFormed(path string, raw json.RawMessage) error {
	return o.decodeField(path, raw, true, nil)
}

// decodeField is DecodeField, or DecodeWellFormed when wellFormed is set,
// the declaration decoded by decl when it isn't nil (declReader: a
// declaration already known).
func (o *Observations) decodeField(path string, raw json.RawMessage, wellFormed bool, decl strict.FieldDecoder) error {
	if decl == nil {
		decl = &o.Declaration
	}
	f := strict.NewFields(path, raw)
	if wellFormed {
		f = strict.NewFieldsWellFormed(path, raw)
	}
	f.Req("format", &o.Format)
	f.Req("declaration", decl)
	f.Req("context", &o.Context)
	strict.ListOf(f, "references", false, &o.References)
	f.Opt("unresolved", &o.Unresolved)
	strict.ListOf(f, "batches", true, &o.Batches)
	strict.ListOf(f, "resources", true, &o.Resources)
	strict.ListOf(f, "pending", false, &o.Pending)
	f.Opt("warnings", &o.Warnings)
	return f.Done()
}

// DecodeField decodes a pending-trigger marker strictly at path.
func (m *Marker) DecodeField(path string, raw json.RawMessage) error {
	return strict.DecodeTagged(path, raw, m)
}

// UnmarshalJSON decodes a pending-trigger marker strictly.
func (m *Marker) UnmarshalJSON(data []byte) error { return m.DecodeField("", data) }

// UnmarshalJSON decodes observations strictly.
func (o *Observations) UnmarshalJSON(data []byte) error { return o.DecodeField("", data) }

// DecodeField decodes a context strictly at path.
func (c *Context) DecodeField(path string, raw json.RawMessage) error {
	return strict.DecodeTagged(path, raw, c)
}

// UnmarshalJSON decodes a context strictly.
func (c *Context) UnmarshalJSON(data []byte) error { return c.DecodeField("", data) }

// DecodeField decodes a reference strictly at path.
func (r *Reference) DecodeField(path string, raw json.RawMessage) error {
	return strict.DecodeTagged(path, raw, r)
}

// UnmarshalJSON decodes a reference strictly.
func (r *Reference) UnmarshalJSON(data []byte) error { return r.DecodeField("", data) }

// DecodeField decodes a batch strictly at path.
func (b *Batch) DecodeField(path string, raw json.RawMessage) error {
	return strict.DecodeTagged(path, raw, b)
}

// UnmarshalJSON decodes a batch strictly.
func (b *Batch) UnmarshalJSON(data []byte) error { return b.DecodeField("", data) }

// DecodeField decodes one resource's verdict strictly at path.
func (r *Resource) DecodeField(path string, raw json.RawMessage) error {
	f := strict.NewFields(path, raw)
	f.Req("id", &r.ID)
	if r.ID != "" && path != "" {
		// Name the resource by its id from here on.
		f.Rename(fmt.Sprintf("%s (%s)", path, r.ID))
	}
	f.Req("verdict", &r.Verdict)
	f.Opt("reason", &r.Reason)
	f.Opt("fingerprint", &r.Fingerprint)
	f.Opt("pin", &r.Pin)
	f.Opt("diff", &r.Diff)
	strict.ListOf(f, "drift", false, &r.Drift)
	return f.Done()
}

// UnmarshalJSON decodes a resource's verdict strictly.
func (r *Resource) UnmarshalJSON(data []byte) error { return r.DecodeField("", data) }

// DecodeField decodes one difference strictly at path.
func (d *Difference) DecodeField(path string, raw json.RawMessage) error {
	return strict.DecodeTagged(path, raw, d)
}

// UnmarshalJSON decodes a difference strictly.
func (d *Difference) UnmarshalJSON(data []byte) error { return d.DecodeField("", data) }
