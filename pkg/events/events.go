// Package events is the stream zap-exec writes while it acts, and that zap
// apply --wetrun --json passes on: one JSON object per line.
//
// The first event of a stream is run_started, and it carries "format":
// "zap.events/1". Every event has an "event" tag; the tags are:
//
//	run_started     the run begins: plan_hash, changes (how many)
//	change_started  a change begins: id, type, action
//	step_started    a step begins: id, step (1-based), summary
//	step_output     only under zap-exec --progress: a running step's last
//	                complete output line so far: id, step, line (masked,
//	                at most 200 bytes; at most one every 250 ms a step)
//	step_ok         the step succeeded
//	step_failed     the step failed: error, code, exit (when it exited)
//	step_skipped    the step was started and then not done: reason
//	change_ok       every step of the change succeeded
//	change_failed   a step failed: error, code
//	change_skipped  not started, because an earlier change failed: reason
//	run_ok          every change succeeded: ok
//	run_failed      a change failed: ok, failed, skipped
//
// The front end adds, after zap-exec's stream, the events of the pass that
// reads the target again:
//
//	held            a resource detection couldn't read: id, type, reason
//	residual        a resource that still doesn't read converged: id, type
//	observe_failed  the reading again itself failed: error
//	done            the command's result: exit, and the counts; error
//	                when the front end has one, and reason when a review
//	                refused the run (docs/protocol.md, The front end's --json)
//
// code is a triage category: transient, permission, not_found, conflict,
// permanent or execution_failed. No value in an event is a resolved secret.
package events

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/zap-go/zap/internal/escape"
	"github.com/zap-go/zap/internal/strict"
	"github.com/zap-go/zap/pkg/canon"
	"github.com/zap-go/zap/pkg/declaration"
)

// Format is the stream's format name and version, carried by run_started.
const Format = "zap.events/1"

// Type is an event's tag.
type Type string

// The event tags.
const (
	RunStarted    Type = "run_started"
	ChangeStarted Type = "change_started"
	StepStarted   Type = "step_started"
	StepOutput    Type = "step_output"
	StepOK        Type = "step_ok"
	StepFailed    Type = "step_failed"
	StepSkipped   Type = "step_skipped"
	ChangeOK      Type = "change_ok"
	ChangeFailed  Type = "change_failed"
	ChangeSkipped Type = "change_skipped"
	RunOK         Type = "run_ok"
	RunFailed     Type = "run_failed"
	Held          Type = "held"
	Residual      Type = "residual"
	ObserveFailed Type = "observe_failed"
	// Orphaned names (id) a resource an earlier run read that the config
	// no longer declares: Zap never removes it.
	Orphaned Type = "orphaned"
	Done     Type = "done"
)

// Code is the triage category of a failure.
type Code string

// The failure codes.
const (
	Transient       Code = "transient"        // a timeout, a dropped connection: retrying may help
	Permission      Code = "permission"       // denied, sudo's refusals included
	NotFound        Code = "not_found"        // something the step needs is missing
	Conflict        Code = "conflict"         // something is in the way: a link, a directory, a full disk
	Permanent       Code = "permanent"        // retrying won't help
	ExecutionFailed Code = "execution_failed" // a command ran and exited non-zero
)

// Event is one line of the stream. Fields an event doesn't use are left out.
// Type is the resource's kind, or "zap" for a change of Zap's own
// (plan.KindZap: the index refresh cache-update-<manager>).
type Event struct {
	Event    Type             `json:"event"`
	Format   string           `json:"format,omitempty"`
	PlanHash string           `json:"plan_hash,omitempty"`
	Changes  int              `json:"changes,omitempty"`
	ID       string           `json:"id,omitempty"`
	Type     declaration.Kind `json:"type,omitempty"`
	Action   string           `json:"action,omitempty"`
	Step     int              `json:"step,omitempty"`
	Summary  string           `json:"summary,omitempty"`
	// Output is what a failed command printed (stdout then stderr),
	// bounded and masked.
	Output string `json:"output,omitempty"`
	// Line is a running step's last complete output line (step_output),
	// masked and cut to 200 bytes.
	Line   string `json:"line,omitempty"`
	Error  string `json:"error,omitempty"`
	Code   Code   `json:"code,omitempty"`
	Exit   *int   `json:"exit,omitempty"`
	Reason string `json:"reason,omitempty"`
	OK     int    `json:"ok,omitempty"`
	Failed int    `json:"failed,omitempty"`
	// Skipped counts changes not started after a failure.
	Skipped  int `json:"skipped,omitempty"`
	Residual int `json:"residual,omitempty"`
	HeldN    int `json:"held,omitempty"`
}

// Read decodes one event line strictly.
func Read(line []byte) (*Event, error) {
	if err := canon.Check(line, nil); err != nil {
		return nil, err
	}
	var e Event
	if err := strict.DecodeChecked(line, &e); err != nil {
		return nil, err
	}
	if err := e.Validate(); err != nil {
		return nil, err
	}
	return &e, nil
}

// Validate checks the tag is known, run_started (and no other event) carries
// the format, a code is one of the codes, and no count is negative.
func (e *Event) Validate() error {
	switch e.Event {
	case RunStarted:
		if e.Format != Format {
			return fmt.Errorf("format: run_started must carry %q", Format)
		}
	case ChangeStarted, StepStarted, StepOutput, StepOK, StepFailed, StepSkipped, ChangeOK, ChangeFailed,
		ChangeSkipped, RunOK, RunFailed, Held, Residual, ObserveFailed, Orphaned, Done:
		if e.Format != "" {
			return fmt.Errorf("format: only run_started carries it")
		}
	default:
		return fmt.Errorf("event: unknown event %q", e.Event)
	}
	switch e.Code {
	case "", Transient, Permission, NotFound, Conflict, Permanent, ExecutionFailed:
	default:
		return fmt.Errorf("code: unknown code %q", e.Code)
	}
	for _, c := range []struct {
		name string
		n    int
	}{{"changes", e.Changes}, {"step", e.Step}, {"ok", e.OK}, {"failed", e.Failed}, {"skipped", e.Skipped}, {"residual", e.Residual}, {"held", e.HeldN}} {
		if c.n < 0 {
			return fmt.Errorf("%s: a count can't be negative", c.name)
		}
	}
	return nil
}

// Marshal encodes e as one line (no trailing newline), its fields in the
// order of the Event struct, the event tag first. Control and invisible
// characters come out as JSON \u escapes; <, > and & are written as they are.
func (e *Event) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil {
		return nil, err
	}
	return escape.JSON(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}
