// Package plan is the document zap-plan writes and zap-exec reads: the
// changeset of one run against one target, in execution order, with its
// plan_hash.
//
// Its first field is "format": "zap.plan/1". Read decodes strictly. Hash
// computes plan_hash from the canonical encoding of the plan (less its
// plan_hash field) and the text of every operation script the plan's steps
// use, so a plan whose changes, target, user, HOME, referenced values or
// operation scripts differ has another hash. docs/protocol.md documents every
// field.
package plan

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"sort"
	"strconv"

	"github.com/zeebo/blake3"

	"github.com/zap-go/zap/internal/strict"
	"github.com/zap-go/zap/pkg/canon"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// Format is the format name and version this package reads and writes.
const Format = "zap.plan/1"

// Plan is one run's changeset.
type Plan struct {
	Format     string                  `json:"format"`
	Target     declaration.Target      `json:"target"`
	Context    observation.Context     `json:"context"`
	References []observation.Reference `json:"references,omitempty"`
	Unresolved []string                `json:"unresolved,omitempty"`
	// Changes are the resources to create or update, in execution order.
	Changes []Change `json:"changes"`
	// Held lists the resources detection couldn't read, then those held
	// behind them, in that order.
	Held []Hold `json:"held,omitempty"`
	// Warnings are the observations' warnings, shown with the plan (a
	// pending-trigger marker for a service the config doesn't manage).
	Warnings []string `json:"warnings,omitempty"`
	// Hash is plan_hash: 64 lowercase hex digits of blake3 (see Hash).
	Hash string `json:"plan_hash"`
}

// Action is what a change does to its resource.
type Action string

// The actions.
const (
	Create Action = "create" // the resource is absent: [+]
	Update Action = "update" // the resource drifted: [~]
)

// KindZap is the type of a change of Zap's own, which declares no resource
// (its resource is left out): the package index refresh Zap puts in front
// of a batch of installs, cache-update-<manager> (a later batch's
// cache-update-<manager>-N). Its action is create; it has no drift and no
// trigger. No declared kind is named zap.
const KindZap declaration.Kind = "zap"

// Change is one resource's part of the plan, or a change of Zap's own
// (KindZap).
type Change struct {
	ID     string           `json:"id"`
	Type   declaration.Kind `json:"type"`
	Action Action           `json:"action"`
	// Resource is the declared resource, references kept as written; left
	// out (the zero Resource) for a change of Zap's own.
	Resource declaration.Resource `json:"resource,omitzero"`
	// Drift is what detection observed differing, for an update.
	Drift []observation.Difference `json:"drift,omitempty"`
	// Fingerprint is the observations' fingerprint of the state the
	// change was planned from, for a kind whose state holds more than its
	// drift shows (a file's content). With Action (create: absent) and
	// Drift it is what zap-exec holds the target to before it acts.
	Fingerprint string `json:"fingerprint,omitempty"`
	// Trigger is, for a service, the restart or reload the change runs:
	// fired by sources changing in this plan, owed by a pending marker,
	// or both. A service converged but for its trigger is an update with
	// no drift whose steps run the trigger alone.
	Trigger *Trigger `json:"trigger,omitempty"`
	Steps   []Step   `json:"steps"`
}

// Trigger is the restart or reload a service's change runs.
type Trigger struct {
	// Action is the stronger of what fires and what is owed: a restart
	// outranks a reload.
	Action observation.TriggerAction `json:"action"`
	// By names the sources whose change in this plan fires it, in
	// execution order.
	By []string `json:"by,omitempty"`
	// Pending is the action a marker on the target owes from an earlier
	// run ("" when none).
	Pending observation.TriggerAction `json:"pending,omitempty"`
}

// Fire is a service a held source's change would restart or reload.
type Fire struct {
	ID     string                    `json:"id"`
	Action observation.TriggerAction `json:"action"`
}

// StepType is how a step is run, shown by its leading mark.
type StepType string

// The step types.
const (
	StepCommand StepType = "command" // > a command Zap runs as written
	StepOp      StepType = "op"      // = one of Zap's own operations
	StepNote    StepType = "note"    // # never run as written
)

// Privilege is the account a step runs as.
type Privilege string

// The privileges.
const (
	// Login is the connecting user (locally: the operator).
	Login Privilege = "login"
	// Root runs under sudo.
	Root Privilege = "root"
	// Elevated is root over SSH; locally the operator first, then sudo
	// when denied.
	Elevated Privilege = "elevated"
)

// Step is one step of a change. Exactly one of Command, Op and Note is set,
// the one Type names.
type Step struct {
	Type    StepType `json:"type"`
	Command *Command `json:"command,omitempty"`
	Op      *Op      `json:"op,omitempty"`
	Note    string   `json:"note,omitempty"`
}

// Command is an operator's command, run by the target's shell from stdin.
type Command struct {
	Run       declaration.Text            `json:"run"`
	Cwd       string                      `json:"cwd,omitempty"`
	Env       map[string]declaration.Text `json:"env,omitempty"`
	Privilege Privilege                   `json:"privilege"`
	// Timeout is the command's limit in seconds; 0 is none.
	Timeout int `json:"timeout,omitempty"`
}

// OpName names one of Zap's own operations.
type OpName string

// The operations with arguments of their own. Each is a constant script (see
// internal/ops) whose text is part of plan_hash. Every other operation (a
// package install, a service's verb, an account's change) is a constant
// script too, named by its OpName and handed its Args (and its Path, when
// set) on the command line; internal/ops lists them.
const (
	OpPut  OpName = "put"  // install a file whole: stage, check, rename
	OpDir  OpName = "dir"  // make a directory and set its mode and owner
	OpLink OpName = "link" // make or replace a symbolic link
)

// OpExtract extracts an archive a file's remote content fetched (its From)
// into a private directory beside the path and swaps it into place; its
// script is one of internal/ops's, like any other operation's.
const OpExtract OpName = "extract"

// OpRead reads a source file's bytes as root for a put whose From is a
// source. It is never a step's own operation: a plan whose put reads a
// source uses it, and plan_hash covers its script.
const OpRead OpName = "read"

// OpPutStream is the put as a put whose content is remote runs it: the put
// script's own functions, its content read raw off stdin as it arrives
// rather than held as a here-document. It is never a step's own operation:
// a plan with such a put uses it, and plan_hash covers its script.
const OpPutStream OpName = "put-stream"

// ValidOpName reports whether name is the form of an operation's name:
// lowercase letters, digits and -, starting with a letter.
func ValidOpName(name OpName) bool {
	if name == "" || name[0] < 'a' || name[0] > 'z' {
		return false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// Op is one of Zap's own operations and its arguments.
type Op struct {
	Name OpName           `json:"name"`
	Path declaration.Text `json:"path"`
	// Target is what a link points to.
	Target *declaration.Text `json:"target,omitempty"`
	Mode   string            `json:"mode,omitempty"`
	Owner  string            `json:"owner,omitempty"`
	Group  string            `json:"group,omitempty"`
	// Content is the text a put installs, and SHA512 its digest in hex.
	Content *string `json:"content,omitempty"`
	SHA512  string  `json:"sha512,omitempty"`
	// Validate is a command a put's file must pass after the write.
	Validate *declaration.Text `json:"validate,omitempty"`
	// From is a put's content source when it isn't inline, as declared
	// (its references unresolved), with Content and SHA512 left empty: a
	// template (its body, vars and kinds), rendered when the step runs; or
	// a source (its path), whose bytes are read as root when the step runs
	// (the read operation, OpRead, whose script plan_hash then covers).
	From *declaration.Content `json:"from,omitempty"`
	// Args are the arguments of an operation other than put, dir and
	// link, as the script receives them (after Path, when Path is set).
	// They are literal: an argument never holds a reference.
	Args []string `json:"args,omitempty"`
	// TextArgs are arguments that may hold references (a database's
	// names and addresses), resolved when the step runs and handed to
	// the script after Args, on its stdin like them.
	TextArgs  []declaration.Text `json:"text_args,omitempty"`
	Privilege Privilege          `json:"privilege"`
	Timeout   int                `json:"timeout,omitempty"`
}

// Hold is a resource left out of the plan because its state, or the state of
// something it waits on, couldn't be read.
type Hold struct {
	ID   string           `json:"id"`
	Type declaration.Kind `json:"type"`
	// Reason is why detection couldn't read it; empty for a resource held
	// behind another.
	Reason string `json:"reason,omitempty"`
	// WaitsOn names the held resources it depends on.
	WaitsOn []string `json:"waits_on,omitempty"`
	// Triggers names the held services its change would restart or
	// reload: a source is held with the service its change fires, since
	// nothing in the plan would run the action it owes.
	Triggers []Fire `json:"triggers,omitempty"`
}

// Read decodes a plan strictly and checks its shape. It does not check the
// hash; see Verify.
func Read(data []byte) (*Plan, error) {
	var p Plan
	if err := strict.Read(data, Format, nullInPlan, &p); err != nil {
		return nil, err
	}
	if err := p.requireLists(); err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &p, nil
}

// requireLists refuses a document that leaves out "changes" or a change's
// "steps": the plan would encode them as null, which no reader takes, so
// encode(decode(x)) would not read back.
func (p *Plan) requireLists() error {
	if p.Changes == nil {
		return &canon.PathError{Path: "changes", Msg: "required field missing"}
	}
	for i, c := range p.Changes {
		if c.Steps == nil {
			return &canon.PathError{Path: fmt.Sprintf("changes[%d] (%s).steps", i, c.ID), Msg: "required field missing"}
		}
	}
	return nil
}

// Encode writes p in canonical form.
func (p *Plan) Encode() ([]byte, error) { return canon.Marshal(p) }

// Validate checks the plan's shape: known enumerations, one body per step.
func (p *Plan) Validate() error {
	if p.Format != Format {
		return fmt.Errorf("format: want %q", Format)
	}
	ids := make(map[string]bool, len(p.Changes))
	for i, c := range p.Changes {
		at := fmt.Sprintf("changes[%d] (%s)", i, c.ID)
		if ids[c.ID] {
			return fmt.Errorf("%s.id: a second change with this id", at)
		}
		ids[c.ID] = true
		if c.Type == KindZap {
			// Zap's own change: an id, no resource, a create with
			// neither drift nor trigger.
			switch {
			case c.ID == "":
				return fmt.Errorf("%s.id: a change of Zap's own needs an id", at)
			case !reflect.ValueOf(c.Resource).IsZero():
				return fmt.Errorf("%s.resource: a change of Zap's own declares no resource", at)
			case c.Action != Create || len(c.Drift) > 0 || c.Trigger != nil || c.Fingerprint != "":
				return fmt.Errorf("%s: a change of Zap's own is a create with no drift, trigger or fingerprint", at)
			}
		} else if c.ID != c.Resource.ID || c.Type != c.Resource.Type {
			return fmt.Errorf("%s: id and type must match the resource's", at)
		}
		if c.Action != Create && c.Action != Update {
			return fmt.Errorf("%s.action: unknown action %q", at, c.Action)
		}
		if c.Fingerprint != "" && (c.Action != Update || !observation.ValidFingerprint(c.Fingerprint)) {
			return fmt.Errorf("%s.fingerprint: 64 lowercase hex digits, for an update only", at)
		}
		if t := c.Trigger; t != nil && t.Action != observation.Restart && t.Action != observation.Reload {
			return fmt.Errorf("%s.trigger.action: %q is neither restart nor reload", at, t.Action)
		}
		for j, s := range c.Steps {
			sat := fmt.Sprintf("%s.steps[%d]", at, j)
			n := 0
			if s.Command != nil {
				n++
			}
			if s.Op != nil {
				n++
			}
			if s.Note != "" {
				n++
			}
			ok := n == 1 && ((s.Type == StepCommand && s.Command != nil) || (s.Type == StepOp && s.Op != nil) || (s.Type == StepNote && s.Note != ""))
			if !ok {
				return fmt.Errorf("%s: type %q needs its one body (command, op or note)", sat, s.Type)
			}
			if s.Op != nil && !ValidOpName(s.Op.Name) {
				return fmt.Errorf("%s.op.name: %q is not an operation's name", sat, s.Op.Name)
			}
			priv := Privilege("")
			if s.Op != nil {
				priv = s.Op.Privilege
			} else if s.Command != nil {
				priv = s.Command.Privilege
			}
			if s.Type != StepNote {
				switch priv {
				case Login, Root, Elevated:
				default:
					return fmt.Errorf("%s: unknown privilege %q", sat, priv)
				}
			}
		}
	}
	return nil
}

// opVarsPath is where a put's template variables sit in a plan.
var opVarsPath = regexp.MustCompile(`^changes\[[0-9]+\]\.steps\[[0-9]+\]\.op\.from\.vars\.`)

// nullInPlan reports whether path is inside a template variable's value,
// where null is data: in a change's resource (declaration.NullInVars) or in
// a put's From.
func nullInPlan(path string) bool {
	return declaration.NullInVars(path) || opVarsPath.MatchString(path)
}

// Ops returns the operations p's steps use, read for a put whose content
// is a source and put-stream for one whose content is remote, sorted by
// name, each once.
func (p *Plan) Ops() []OpName {
	seen := map[OpName]bool{}
	var names []OpName
	use := func(name OpName) {
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	for _, c := range p.Changes {
		for _, s := range c.Steps {
			if s.Op == nil {
				continue
			}
			use(s.Op.Name)
			if s.Op.Name != OpPut || s.Op.From == nil {
				continue
			}
			switch s.Op.From.Type {
			case declaration.ContentSource:
				use(OpRead)
			case declaration.ContentRemote:
				use(OpPutStream)
			}
		}
	}
	sort.Slice(names, func(i, j int) bool { return names[i] < names[j] })
	return names
}

// Script is the text an operation runs and the command it runs in.
type Script struct {
	Text string
	// Invocation is the command line the script is handed to (it arrives
	// on stdin), for example "sh -s --".
	Invocation string
}

// hashTag opens the hashed bytes, so a plan_hash can't be mistaken for the
// hash of anything else.
const hashTag = "zap plan_hash v1\n"

// Hash computes plan_hash: blake3 over a fixed tag, the canonical plan with
// an empty plan_hash, and then, for each operation the plan uses in name
// order, its name, invocation and script text, each length-prefixed. script
// returns the text for a name; a name it doesn't know is an error.
func Hash(p *Plan, script func(OpName) (Script, bool)) (string, error) {
	h := blake3.New()
	write := func(s string) {
		h.WriteString(strconv.Itoa(len(s)))
		h.WriteString(":")
		h.WriteString(s)
		h.WriteString("\n")
	}
	h.WriteString(hashTag)
	if err := hashDoc(h, p); err != nil {
		return "", err
	}
	for _, name := range p.Ops() {
		s, ok := script(name)
		if !ok {
			return "", fmt.Errorf("no script for operation %q", name)
		}
		write(string(name))
		write(s.Invocation)
		write(s.Text)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hashDoc writes to h the record of p's canonical encoding with an empty
// plan_hash, as if the whole document had been encoded and then written,
// without holding it: the document less its changes is encoded whole (it
// is small), each change on its own, once to learn the length the record
// opens with and again to write it. A change's canonical bytes are the
// same alone as inside the plan, and "changes" is the plan's first key
// after "format" (canonical order; the field is never left out), so the
// bytes written are exactly canon.Marshal's of the whole plan.
func hashDoc(h io.Writer, p *Plan) error {
	c := *p
	c.Hash, c.Changes = "", []Change{}
	rest, err := canon.Marshal(&c)
	if err != nil {
		return err
	}
	head := `{"format":` + string(canon.AppendString(nil, Format)) + `,"changes":[`
	tail, ok := bytes.CutPrefix(rest, []byte(head+"]"))
	if !ok || p.Changes == nil {
		// Not the shape hashDoc splices (a plan of another format, or
		// with no list of changes, which Read refuses): encode it whole.
		c.Changes = p.Changes
		doc, err := canon.Marshal(&c)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(h, "%d:%s\n", len(doc), doc)
		return err
	}
	size := len(head) + 1 + len(tail)
	for i := range p.Changes {
		b, err := canon.Marshal(&p.Changes[i])
		if err != nil {
			return err
		}
		size += len(b)
		if i > 0 {
			size++
		}
	}
	if _, err := fmt.Fprintf(h, "%d:%s", size, head); err != nil {
		return err
	}
	for i := range p.Changes {
		b, err := canon.Marshal(&p.Changes[i])
		if err != nil {
			return err
		}
		if i > 0 {
			h.Write([]byte(","))
		}
		h.Write(b)
	}
	h.Write([]byte("]"))
	h.Write(tail)
	_, err = h.Write([]byte("\n"))
	return err
}

// Verify recomputes p's hash and compares it with p.Hash.
func Verify(p *Plan, script func(OpName) (Script, bool)) error {
	got, err := Hash(p, script)
	if err != nil {
		return err
	}
	if got != p.Hash {
		return fmt.Errorf("plan_hash: the plan hashes to %s, not %s (the plan was edited, or made by a zap whose operation scripts differ)", got, p.Hash)
	}
	return nil
}

// Written is the operation's arguments as the plan writes them: Args,
// then each of TextArgs with its references as {env:NAME}. A step's
// wording is made from it, never from a resolved value.
func (op *Op) Written() []string {
	if len(op.TextArgs) == 0 {
		return op.Args
	}
	out := append([]string(nil), op.Args...)
	for _, t := range op.TextArgs {
		out = append(out, t.String())
	}
	return out
}

// FetchedFrom describes where a put's or an extract's remote content comes
// from, as a step's summary says it: "fetched from URL, blake3 PIN", with
// the extract form of an archive ("tar.gz, strip_components 1"). The URL
// is as declared; an auth credential is never part of it. "" for any other
// step.
func (op *Op) FetchedFrom() string {
	c := op.From
	if c == nil || c.Type != declaration.ContentRemote || c.URL == nil {
		return ""
	}
	s := "fetched from " + c.URL.String() + ", blake3 " + c.Blake3
	if e := c.Extract; e != nil && e.Type != declaration.ExtractNone {
		s += ", " + string(e.Type)
		if e.StripComponents != nil {
			s += ", strip_components " + strconv.Itoa(*e.StripComponents)
		}
	}
	return s
}
