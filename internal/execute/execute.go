// Package execute runs a plan's changes in order against a Host, stopping at
// the first failure, and writes the event stream of pkg/events as it goes:
// one JSON object per line, each line written (and so flushed) as it
// happens.
//
// A run's stream is:
//
//	run_started     format, plan_hash, changes (how many)
//	change_started  id, type, action
//	step_started    id, step (1-based), summary
//	step_ok         id, step
//	step_failed     id, step, error, code, exit (a command that exited),
//	                output (the last 64 KiB a command printed)
//	step_skipped    id, step, summary, reason: a note, which has nothing to
//	                run (after its step_started), or a step after a failed
//	                one in the same change (with no step_started)
//	change_ok       id, type
//	change_failed   id, type, error, code, exit, output (the failed step's)
//	change_skipped  id, type, reason: every change after a failed one
//	run_ok          ok (how many changes)
//	run_failed      ok, failed, skipped
//
// A step's summary describes it as written, in the words a report uses for
// its step line (see Summary): "put /etc/motd (mode 644, as alice)". A
// failed step's error is its summary and what went wrong, in one of these
// forms:
//
//	put /etc/motd (mode 644, as alice) failed: /etc/motd is a directory
//	put /etc/x (as alice, checked by x -t) failed: the check exited 1; the old file is back
//	make install exited 2
//	make install timed out after 30s
//	make install failed: can't enter /srv/app: no such file or directory
//	command curl -fs http://localhost/ (stdout contains "ok") failed: its stdout doesn't contain the expected text
//
// A verify's command assertion is summarized as the assertion it checks;
// one whose command exited 0 without printing its expected text fails with
// no exit (the command's was 0), its output what the command printed.
//
// A Host that is a Pipeliner is handed runs of consecutive steps of Zap's
// own operations at once (batch.go); the stream is the same either way,
// but that when its connection is lost the steps it had already sent the
// target (Unknowns) are reported failed transient, their outcome unknown
// (errUnknown), before the changes after them are skipped.
//
// code is the failure's triage category (see Classify). Secret values are
// masked out of every error and output (internal/mask).
package execute

import (
	"context"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/zap-go/zap/internal/mask"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/events"
)

// Runner runs a prepared plan on its Host.
type Runner struct {
	Host Host
	// Events is where the stream goes; each event is one Write.
	Events io.Writer
	// Mask takes secret values out of errors and output (internal/mask, in
	// every form it knows); nil masks nothing.
	Mask *mask.Masker
	// Fetch gets a remote content's pinned bytes on the operator's
	// machine; nil fails every step that needs them.
	Fetch Fetcher
	// Live writes step_output events while a step runs: its last output
	// line (live.go).
	Live bool

	// flat is the run's steps in order; batch the batch under way, when
	// the Host is a Pipeliner.
	flat  []*PreparedStep
	batch *batchRun
	// unknownTo is the last step (in flat) whose outcome is unknown: a
	// batch sent it before the connection was lost (Unknowns); -1 when
	// none is.
	unknownTo int
}

// errUnknown is the error of a step a batch sent the target before the
// connection to it was lost.
var errUnknown = Errorf(events.Transient, "the connection dropped after the step was sent to the target: whether it ran is unknown (the next plan reads what stands)")

// Result counts a run's changes.
type Result struct {
	OK, Failed, Skipped int
}

// Run executes p's changes in order, stopping at the first that fails; the
// rest are skipped. The error is only for an event that couldn't be
// written: the run stops there.
func (r *Runner) Run(ctx context.Context, p *Prepared) (Result, error) {
	var res Result
	ctx = WithMask(ctx, r.Mask)
	r.flat, r.unknownTo = flatten(p), -1
	defer r.endBatch()
	if err := r.emit(&events.Event{Event: events.RunStarted, Format: events.Format, PlanHash: p.Hash, Changes: len(p.Changes)}); err != nil {
		return res, err
	}
	failedID := ""
	base := 0
	for i := range p.Changes {
		c := &p.Changes[i]
		base += len(c.Steps)
		id, kind := c.Change.ID, c.Change.Type
		if failedID != "" && base-len(c.Steps) > r.unknownTo {
			res.Skipped++
			if err := r.emit(&events.Event{Event: events.ChangeSkipped, ID: id, Type: kind, Reason: fmt.Sprintf("an earlier change failed: %s", failedID)}); err != nil {
				return res, err
			}
			continue
		}
		ok, err := r.change(ctx, c, base-len(c.Steps))
		if err != nil {
			return res, err
		}
		if ok {
			res.OK++
		} else {
			res.Failed++
			if failedID == "" {
				failedID = id
			}
		}
	}
	end := &events.Event{Event: events.RunOK, OK: res.OK}
	if res.Failed > 0 {
		end = &events.Event{Event: events.RunFailed, OK: res.OK, Failed: res.Failed, Skipped: res.Skipped}
	}
	return res, r.emit(end)
}

// change runs one change's steps and reports whether all succeeded; base
// is the index of its first step in the run's flat list.
func (r *Runner) change(ctx context.Context, c *PreparedChange, base int) (bool, error) {
	id, kind := c.Change.ID, c.Change.Type
	if err := r.emit(&events.Event{Event: events.ChangeStarted, ID: id, Type: kind, Action: string(c.Change.Action)}); err != nil {
		return false, err
	}
	var failure *events.Event
	for i := range c.Steps {
		s, n := &c.Steps[i], i+1
		if failure != nil && base+i > r.unknownTo {
			if err := r.emit(&events.Event{Event: events.StepSkipped, ID: id, Step: n, Summary: s.Summary, Reason: "an earlier step of the change failed"}); err != nil {
				return false, err
			}
			continue
		}
		if err := r.emit(&events.Event{Event: events.StepStarted, ID: id, Step: n, Summary: s.Summary}); err != nil {
			return false, err
		}
		if s.Note != "" {
			if err := r.emit(&events.Event{Event: events.StepSkipped, ID: id, Step: n, Reason: "a note: there is nothing to run"}); err != nil {
				return false, err
			}
			continue
		}
		serr, werr := r.watched(ctx, id, n, func(ctx context.Context) error { return r.step(ctx, s, base+i) })
		if werr != nil {
			return false, werr
		}
		if serr == nil {
			if err := r.emit(&events.Event{Event: events.StepOK, ID: id, Step: n}); err != nil {
				return false, err
			}
			continue
		}
		f := r.failed(id, n, s, serr)
		if failure == nil {
			failure = f
		}
		if err := r.emit(f); err != nil {
			return false, err
		}
	}
	if failure != nil {
		return false, r.emit(&events.Event{Event: events.ChangeFailed, ID: id, Type: kind, Error: failure.Error, Code: failure.Code, Exit: failure.Exit, Output: failure.Output})
	}
	return true, r.emit(&events.Event{Event: events.ChangeOK, ID: id, Type: kind})
}

// step runs s, the run's step g: in a batch when the Host can (batched),
// else alone.
func (r *Runner) step(ctx context.Context, s *PreparedStep, g int) error {
	if g <= r.unknownTo {
		return errUnknown
	}
	if err := interrupted(ctx); err != nil {
		return err
	}
	if ok, err := r.batched(ctx, g); ok {
		return err
	}
	return r.alone(ctx, s)
}

// alone runs s by itself on the Host (or, a Local step, on the operator's
// machine).
func (r *Runner) alone(ctx context.Context, s *PreparedStep) error {
	switch {
	case s.Put != nil && s.Put.Source != "":
		p, err := r.readSource(ctx, s.Put)
		if err != nil {
			return err
		}
		return r.Host.Put(ctx, p)
	case s.Put != nil && s.Put.Remote != nil:
		return r.remotePut(ctx, s.Put)
	case s.Put != nil:
		return r.Host.Put(ctx, s.Put)
	case s.Extract != nil:
		return r.extract(ctx, s.Extract)
	case s.Dir != nil:
		return r.Host.Dir(ctx, s.Dir)
	case s.Link != nil:
		return r.Host.Link(ctx, s.Link)
	case s.Command != nil:
		return r.Host.Run(ctx, s.Command)
	case s.Op != nil:
		return r.Host.Op(ctx, s.Op)
	case s.Local != nil:
		return s.Local(ctx)
	}
	return errors.New("the step has nothing to run")
}

// readSource returns put p with its source file's bytes as its content,
// read through the Host (SourceReader) and held to SourceLimit.
func (r *Runner) readSource(ctx context.Context, p *Put) (*Put, error) {
	sr, ok := r.Host.(SourceReader)
	if !ok {
		return nil, Errorf(events.Permanent, "this host can't read a source file; nothing was written")
	}
	data, err := sr.ReadSource(ctx, p.Source)
	if err != nil {
		return nil, fmt.Errorf("the source %s %w; nothing was written", p.Source, err)
	}
	if len(data) > SourceLimit {
		return nil, Errorf(events.Permanent, "the source %s is larger than 16 MiB; nothing was written", p.Source)
	}
	sum := sha512.Sum512(data)
	out := *p
	out.Content, out.SHA512 = data, hex.EncodeToString(sum[:])
	return &out, nil
}

// failed is the step_failed event for err.
func (r *Runner) failed(id string, n int, s *PreparedStep, err error) *events.Event {
	code, exit, output := Classify(err)
	var msg string
	var ee *ExitError
	var te *TimeoutError
	switch {
	case err == errUnknown:
		msg = s.Summary + ": " + err.Error()
	case s.Command != nil && s.expect && errors.As(err, &ee) && err == error(ee) &&
		ee.Status == vocab.ExpectStatus && strings.HasSuffix(ee.Output, vocab.ExpectMissed+"\n"):
		// The command exited 0: what failed is its output.
		msg = s.Summary + " failed: its stdout doesn't contain the expected text"
		exit, output = nil, strings.TrimSuffix(ee.Output, vocab.ExpectMissed+"\n")
	case s.Command != nil && errors.As(err, &ee) && err == error(ee):
		msg = s.Summary + " " + ee.Error()
	case s.Command != nil && errors.As(err, &te) && err == error(te):
		msg = s.Summary + " " + te.Error()
	case s.Op != nil && errors.As(err, &ee) && err == error(ee):
		msg = s.Summary + " failed: the " + s.Op.Name + " script " + ee.Error()
	case s.Op != nil && errors.As(err, &te) && err == error(te):
		msg = s.Summary + " failed: the " + s.Op.Name + " script " + te.Error()
	default:
		msg = s.Summary + " failed: " + err.Error()
	}
	return &events.Event{Event: events.StepFailed, ID: id, Step: n, Error: r.Mask.String(msg), Code: code, Exit: exit, Output: r.Mask.String(output)}
}

// emit writes one event as one line.
func (r *Runner) emit(e *events.Event) error {
	b, err := e.Marshal()
	if err != nil {
		return fmt.Errorf("encode the %s event: %w", e.Event, err)
	}
	if _, err := r.Events.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("write the %s event: %w", e.Event, err)
	}
	return nil
}
