package stages

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"slices"
	"sync"
)

// Early is a stage started before zap knows it will take its answer: on the
// input zap would give it, with the GOGC and arguments it would run with.
// RunOrTake hands its answer over when zap then runs the stage exactly so;
// Stop drops it. Its stderr is held until then, so it is passed on (and
// masked) only once taken.
type Early struct {
	name   string
	input  []byte
	gc     string
	args   []string
	cancel context.CancelFunc
	done   chan struct{}
	// fed is closed once the stage may read its input (Feed).
	fed      chan struct{}
	feedOnce sync.Once
	out      []byte
	stderr   []byte
	err      error
}

// StartHeld starts the stage name on input, with the GOGC gc ("" for the
// operator's own) and args, whatever UseGC decides later, holding the
// input back until Feed: the process starts (its runtime, its flags)
// while zap still decides whether it may have the input. A stage stopped
// before it was fed read nothing.
func (s *Runner) StartHeld(ctx context.Context, name string, input []byte, gc string, args ...string) *Early {
	ctx, cancel := context.WithCancel(ctx)
	e := &Early{name: name, input: input, gc: gc, args: args, cancel: cancel, done: make(chan struct{}), fed: make(chan struct{})}
	cmd := s.commandGC(ctx, name, gc, len(input), args...)
	cmd.Stdin = &heldReader{fed: e.fed, stopped: ctx.Done(), r: bytes.NewReader(input)}
	var stdout Output
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	go func() {
		defer close(e.done)
		e.err = cmd.Run()
		e.out, e.stderr = fit(stdout.Bytes()), stderr.Bytes()
	}()
	return e
}

// Feed hands a stage StartHeld started its input; calls after the first
// do nothing.
func (e *Early) Feed() { e.feedOnce.Do(func() { close(e.fed) }) }

// heldReader is a stage's stdin that gives nothing until fed is closed,
// and ends (EOF) once stopped is, whether fed or not.
type heldReader struct {
	fed, stopped <-chan struct{}
	r            *bytes.Reader
}

func (h *heldReader) Read(p []byte) (int, error) {
	select {
	case <-h.stopped:
		return 0, io.EOF
	case <-h.fed:
	}
	select {
	case <-h.stopped:
		return 0, io.EOF
	default:
	}
	return h.r.Read(p)
}

// Stop stops a stage nothing took, and waits for it.
func (e *Early) Stop() {
	e.cancel()
	<-e.done
}

// RunOrTake runs the stage name on input with args, as Run does, or takes
// the answer of e (nil for none) when e is that stage started exactly so:
// the same input, args and the GOGC Run would use now. An e started
// otherwise is stopped and its answer dropped.
func (s *Runner) RunOrTake(ctx context.Context, e *Early, name string, input []byte, args ...string) ([]byte, error) {
	if e == nil {
		return s.Run(ctx, name, input, args...)
	}
	if e.name != name || !sameBytes(e.input, input) || e.gc != s.gc || !slices.Equal(e.args, args) {
		e.Stop()
		return s.Run(ctx, name, input, args...)
	}
	// Taken, it runs on the input zap would give it now: one held back
	// gets it.
	e.Feed()
	<-e.done
	e.cancel()
	if e.err != nil {
		return nil, s.Failure(name, e.err, e.stderr)
	}
	s.PassOn(e.stderr)
	return e.out, nil
}

// sameBytes is true when a and b are the same bytes, compared cheaply when
// they are the same slice.
func sameBytes(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	return bytes.Equal(a, b)
}

// commandGC is Command with the GOGC gc ("" for the operator's own) for a
// reading stage given input bytes, whatever UseGC decided.
func (s *Runner) commandGC(ctx context.Context, name, gc string, input int, args ...string) *exec.Cmd {
	saved := s.gc
	s.gc = gc
	defer func() { s.gc = saved }()
	return s.command(ctx, name, input, args...)
}
