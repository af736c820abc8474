package execute

import (
	"context"
	"errors"

	"github.com/zap-go/zap/pkg/events"
)

// Step runs one step alone, outside a plan, as step n of id, between the
// events Run writes around each step of a change: step_started, step_output
// while it runs (Live), then step_ok, or step_failed with the error, code,
// exit and masked output Run's would carry (a *SkipError is a step_skipped
// with its reason). It never batches, and writes no change or run events:
// zap-deploy runs its steps through it, in an order of its own. It returns
// the step's error (nil: it succeeded) and, apart, the error of an event
// that couldn't be written.
func (r *Runner) Step(ctx context.Context, id string, n int, s *PreparedStep) (err, werr error) {
	ctx = WithMask(ctx, r.Mask)
	if werr := r.emit(&events.Event{Event: events.StepStarted, ID: id, Step: n, Summary: s.Summary}); werr != nil {
		return nil, werr
	}
	err, werr = r.watched(ctx, id, n, func(ctx context.Context) error {
		if err := interrupted(ctx); err != nil {
			return err
		}
		return r.alone(ctx, s)
	})
	if werr != nil {
		return err, werr
	}
	var skip *SkipError
	switch {
	case err == nil:
		werr = r.emit(&events.Event{Event: events.StepOK, ID: id, Step: n})
	case errors.As(err, &skip):
		werr = r.emit(&events.Event{Event: events.StepSkipped, ID: id, Step: n, Reason: r.Mask.String(skip.Reason)})
	default:
		werr = r.emit(r.failed(id, n, s, err))
	}
	return err, werr
}

// SkipError is a step run alone (Step) that found it has nothing to do:
// a step_skipped with Reason, not a failure.
type SkipError struct{ Reason string }

func (e *SkipError) Error() string { return "skipped: " + e.Reason }

// Captured is what a step's command or operation printed, kept for the
// step that reads it (WithCapture): its stdout and stderr, each the last
// OutputLimit bytes, masked as the step's output is.
type Captured struct{ Stdout, Stderr *Tail }

type captureKey struct{}

// WithCapture returns ctx carrying a Captured a host tees what a command or
// operation run under it prints into (LiveStreams), besides keeping its own
// tails: a step of Zap's own that reads a script's answer (zap-deploy's
// read of the target, its release script's "swapped") gets it there.
func WithCapture(ctx context.Context) (context.Context, *Captured) {
	c := &Captured{Stdout: OutputTail(ctx), Stderr: OutputTail(ctx)}
	return context.WithValue(ctx, captureKey{}, c), c
}

func capturedOf(ctx context.Context) *Captured {
	c, _ := ctx.Value(captureKey{}).(*Captured)
	return c
}
