package execute

import (
	"context"
	"fmt"
)

// BatchStep is one step a Pipeliner may run in a batch: exactly one of Put,
// Dir, Link and Op is set.
type BatchStep struct {
	Put  *Put
	Dir  *Dir
	Link *Link
	Op   *ZapOp
}

// Pipeliner is a Host that can run a run of consecutive steps without a
// round trip to the target each (over SSH: one session for the run,
// internal/sshhost). The runner hands it only steps of Zap's own operations
// whose input is known when the run starts: a put with its content inline
// and no validate check, a dir, a link, an operation with no payload.
// Commands, validated puts, puts of a source or remote content (or a
// streamed Body), extracts
// and operations with a payload run one by one as before.
type Pipeliner interface {
	// Pipeline starts running steps in order, each once the one before it
	// has succeeded, and returns them under way. Nothing runs after a step
	// that fails.
	Pipeline(ctx context.Context, steps []BatchStep) Batch
}

// Batch is a Pipeline's steps under way.
type Batch interface {
	// Next waits for the next step's end and returns what Host would have
	// for it alone (nil, an *ExitError, a *TimeoutError, a coded error).
	// A step is current from the end of the one before it (the batch's
	// start for the first): its limit counts from there. Once one step has
	// failed Next isn't called again.
	Next(ctx context.Context) error
	// Close ends the batch: a step still running is stopped, and none
	// that hasn't started runs. It is called once, whatever Next returned.
	Close()
}

// Unknowns is a Batch that can say, once Next reported the connection to
// the target lost, how many of the steps after that one the target had
// already been sent: they may still have run (a window of them, written
// ahead so the run pays no round trip per step), and the runner reports
// their changes' outcome as unknown rather than skipped.
type Unknowns interface {
	Unknown() int
}

// batchable reports whether s can run in a batch, and as what.
func batchable(s *PreparedStep) (BatchStep, bool) {
	switch {
	case s.Put != nil && s.Put.Source == "" && s.Put.Remote == nil && s.Put.Body == nil && s.Put.Validate == nil:
		return BatchStep{Put: s.Put}, true
	case s.Dir != nil:
		return BatchStep{Dir: s.Dir}, true
	case s.Link != nil:
		return BatchStep{Link: s.Link}, true
	case s.Op != nil && s.Op.Payload == nil:
		return BatchStep{Op: s.Op}, true
	}
	return BatchStep{}, false
}

// batchRun is the batch the runner is in: the indexes (in the run's flat
// list of steps) of the steps it runs, and how many Next has returned.
type batchRun struct {
	b    Batch
	idx  []int
	done int
}

// pending reports whether the run's step g is the batch's next.
func (b *batchRun) pending(g int) bool {
	return b != nil && b.done < len(b.idx) && b.idx[b.done] == g
}

// batched runs the run's step g through a batch when the host can: the
// current batch when g is its next step, or a new one of g and the
// batchable steps after it (notes have nothing to run and are passed over;
// any other step ends the batch). It reports false when g runs alone.
func (r *Runner) batched(ctx context.Context, g int) (bool, error) {
	if !r.batch.pending(g) {
		pl, ok := r.Host.(Pipeliner)
		if !ok {
			return false, nil
		}
		var steps []BatchStep
		var idx []int
		for k := g; k < len(r.flat); k++ {
			if r.flat[k].Note != "" {
				continue
			}
			bs, ok := batchable(r.flat[k])
			if !ok {
				break
			}
			steps, idx = append(steps, bs), append(idx, k)
		}
		if len(steps) < 2 {
			return false, nil
		}
		r.endBatch()
		r.batch = &batchRun{b: pl.Pipeline(ctx, steps), idx: idx}
	}
	err := r.batch.b.Next(ctx)
	r.batch.done++
	if u, ok := r.batch.b.(Unknowns); ok && err != nil {
		if n := min(u.Unknown(), len(r.batch.idx)-r.batch.done); n > 0 {
			r.unknownTo = r.batch.idx[r.batch.done-1+n]
		}
	}
	if err != nil || r.batch.done == len(r.batch.idx) {
		r.endBatch()
	}
	return true, err
}

// endBatch closes the current batch, if any.
func (r *Runner) endBatch() {
	if r.batch != nil {
		r.batch.b.Close()
		r.batch = nil
	}
}

// flatten lists p's steps in the order they run.
func flatten(p *Prepared) []*PreparedStep {
	var flat []*PreparedStep
	for i := range p.Changes {
		for j := range p.Changes[i].Steps {
			flat = append(flat, &p.Changes[i].Steps[j])
		}
	}
	return flat
}

// interrupted is a step's error when the run's context ended before it.
func interrupted(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("interrupted: %w", err)
	}
	return nil
}
