package evaluate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"runtime/metrics"
	"strings"
	"sync"
	"time"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"

	"github.com/zap-go/zap/pkg/declaration"
)

// Options bound an evaluation.
type Options struct {
	// Timeout ends an evaluation that runs longer (default 30 s;
	// NoTimeout: none, for a caller that keeps the time itself).
	Timeout time.Duration
	// MaxHeap ends an evaluation once the process's live heap grows past it
	// (default 512 MiB).
	MaxHeap uint64
	// Console receives what the config prints (default: dropped).
	Console io.Writer
	// Export names the global the bundle assigns the config module's
	// exports to.
	Export string
	// Files reads the project files the config names for content
	// (project_text and its kin); nil: the config reads none.
	Files Files
	// Prepared, unless nil, is the interpreter to run in, made ahead by
	// Prepare with the console it was given (Console is then unused). It
	// serves one evaluation.
	Prepared *Prepared
}

// Prepared is an interpreter being made ahead of an evaluation, while the
// caller does other work (zap-eval bundles the config meanwhile).
type Prepared struct {
	done chan struct{}
	rt   *goja.Runtime
	in   *intrinsics
	call goja.Callable
	err  error
}

// Prepare starts making the interpreter an evaluation runs in, with what
// the config prints going to console (nil: dropped), and returns at once.
func Prepare(console io.Writer) *Prepared {
	if console == nil {
		console = io.Discard
	}
	utcOnce.Do(func() { time.Local = time.UTC })
	p := &Prepared{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.rt, p.in, p.call, p.err = newRuntime(console)
	}()
	return p
}

// runtime is the interpreter opts.Prepared made, waited for, or one made
// now.
func (opts Options) runtime() (*goja.Runtime, *intrinsics, goja.Callable, error) {
	if p := opts.Prepared; p != nil {
		<-p.done
		return p.rt, p.in, p.call, p.err
	}
	return newRuntime(opts.Console)
}

// Defaults for Options.
const (
	DefaultTimeout = 30 * time.Second
	DefaultMaxHeap = 512 << 20
)

// The hints for a config that passed a bound, also where zap-eval's hard
// limits caught it in the middle of a call.
const (
	TimeHint   = "look for a loop that never ends, or one call given too much to do"
	MemoryHint = "look for a loop that keeps growing a value, or an array or string made too large at once"
)

// NoTimeout as Options.Timeout sets no time limit: zap-eval's is kept by
// the process that watches the evaluating one, which kills it.
const NoTimeout time.Duration = -1

// MaxCallDepth bounds the interpreter's call stack, so a runaway recursion
// fails at once rather than when the heap cap or the timeout catches it.
const MaxCallDepth = 10000

// heapPoll is how often the heap is measured.
const heapPoll = 5 * time.Millisecond

var utcOnce sync.Once

// interruption is why the evaluation was interrupted.
type interruption struct{ err error }

// Run evaluates the bundled config and returns what it declares. It doesn't
// run declaration.Validate. An *Error or an *Errors is the config's
// problem; any other error is the evaluator's.
func Run(ctx context.Context, s Script, opts Options) (*declaration.Declaration, error) {
	ev, err := Evaluate(ctx, s, opts)
	if err != nil {
		return nil, err
	}
	return ev.Decl, nil
}

// Evaluate is Run, returning with the declaration where the config made
// it, so that Check can place the problems the declaration's own checks
// find.
func Evaluate(ctx context.Context, s Script, opts Options) (*Evaluation, error) {
	if opts.Timeout == 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxHeap == 0 {
		opts.MaxHeap = DefaultMaxHeap
	}
	if opts.Console == nil {
		opts.Console = io.Discard
	}
	// Every evaluation runs in UTC, whatever TZ says.
	utcOnce.Do(func() { time.Local = time.UTC })

	rt, in, call, err := opts.runtime()
	if err != nil {
		return nil, err
	}

	pos := newPositions(s)
	// The interpreter never reads a source map: positions maps them.
	ast, err := goja.Parse(s.Name, s.Code, parser.WithDisableSourceMaps)
	if err != nil {
		return nil, &Error{Msg: "the config doesn't compile: " + err.Error()}
	}
	pos.prog = ast
	prg, err := goja.CompileAST(ast, true)
	if err != nil {
		return nil, &Error{Msg: "the config doesn't compile: " + err.Error()}
	}

	stop := limit(ctx, rt, opts)
	defer stop()

	b := newBuilder(rt, &converter{rt: rt, in: in}, pos)
	b.files = opts.Files
	if err := b.installHooks(); err != nil {
		// The limits run from here on: a cancellation, a timeout or the
		// heap cap can interrupt a hook's own few steps too, and reads
		// as what it is.
		return nil, b.failure(err)
	}
	if _, err := rt.RunProgram(prg); err != nil {
		return nil, b.failure(err)
	}
	exports, _ := rt.Get(opts.Export).(*goja.Object)
	var def goja.Value
	if exports != nil {
		def = exports.Get("default")
	}
	if def == nil || goja.IsUndefined(def) {
		return nil, &Error{
			Msg:  "the config has no default export",
			Hint: "write export default (zap) => { zap.target({local: true}); ... }",
		}
	}
	if _, ok := goja.AssertFunction(def); !ok {
		return nil, &Error{
			Msg:  "the config's default export is not a function",
			Hint: "write export default (zap) => { zap.target({local: true}); ... }",
		}
	}
	returned := b.rt.ToValue(func(v goja.Value) {
		b.returned = true
		if o, ok := v.(*goja.Object); ok {
			if p, ok := o.Export().(*goja.Promise); ok {
				b.promise = p
			}
		}
	})
	// The interpreter runs every promise job before this call returns.
	_, err = call(goja.Undefined(), def, b.obj, returned)
	b.finished = true
	if err != nil {
		return nil, b.failure(err)
	}
	if err := b.problems(); err != nil {
		return nil, err
	}
	if b.promise != nil {
		switch b.promise.State() {
		case goja.PromiseStateRejected:
			return nil, b.thrown(b.promise.Result(), "the config's function rejected")
		case goja.PromiseStatePending:
			return nil, &Error{
				Msg:  "the config's function never finished: it awaits a promise that can never settle",
				Hint: "there are no timers or I/O in a config; every promise it awaits must settle from the config's own code",
			}
		}
	}
	d, err := b.declaration()
	if err != nil {
		return nil, err
	}
	return &Evaluation{Decl: d, Files: b.filesRead(), pos: pos, sites: b.sites, targetAt: b.targetAt, deployAt: b.deployAt}, nil
}

// installHooks installs the hooks the config's library calls: the env
// reference's and the project file reader's.
func (b *builder) installHooks() error {
	if err := b.installEnvRef(); err != nil {
		return err
	}
	return b.installProjectFile()
}

// newRuntime makes the interpreter a config runs in: no clock, the
// built-ins captured before the config's code runs, the prelude run (call
// is its function that calls the default export) and console writing to
// console.
func newRuntime(console io.Writer) (rt *goja.Runtime, in *intrinsics, call goja.Callable, err error) {
	rt = goja.New()
	rt.SetMaxCallStackSize(MaxCallDepth)
	closeClock(rt)
	if in, err = captureIntrinsics(rt); err != nil {
		return nil, nil, nil, err
	}
	pre, err := rt.RunScript(preludeName, prelude)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("prelude: %w", err)
	}
	preFn, _ := goja.AssertFunction(pre)
	callV, err := preFn(goja.Undefined(), rt.GlobalObject())
	if err != nil {
		return nil, nil, nil, fmt.Errorf("prelude: %w", err)
	}
	call, _ = goja.AssertFunction(callV)
	if err := installConsole(rt, console); err != nil {
		return nil, nil, nil, err
	}
	return rt, in, call, nil
}

// failure turns an error from running the config into the error to
// report: the builder's problems if there were any (the config may have
// thrown one on, or thrown something else after catching it), else what
// stopped it.
func (b *builder) failure(err error) error {
	b.finished = true
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		if in, ok := ie.Value().(interruption); ok {
			return in.err
		}
		return &Error{Msg: fmt.Sprintf("the evaluation was interrupted: %v", ie.Value())}
	}
	if err := b.problems(); err != nil {
		return err
	}
	var ex *goja.Exception
	if errors.As(err, &ex) {
		return b.thrown(ex.Value(), "the config threw")
	}
	var so *goja.StackOverflowError
	if errors.As(err, &so) {
		return &Error{
			Pos: b.pos.first(so.Stack()),
			Msg: fmt.Sprintf("RangeError: Maximum call stack size exceeded (%d calls deep)", MaxCallDepth),
		}
	}
	return &Error{Msg: err.Error()}
}

// pcSuffix is the bytecode offset goja adds to a position.
var pcSuffix = regexp.MustCompile(`(:\d+:\d+)\(\d+\)`)

// posInFrame finds file:line:col in a stack frame line.
var posInFrame = regexp.MustCompile(`\(?([^\s()]+:\d+:\d+)\)?$`)

// thrown describes a value the config threw or rejected with.
func (b *builder) thrown(v goja.Value, what string) *Error {
	o, ok := v.(*goja.Object)
	if !ok || o.ClassName() != "Error" {
		s := "undefined"
		if v != nil {
			if str, isStr := v.(goja.String); isStr {
				s = fmt.Sprintf("%q", str.String())
			} else {
				s = v.String()
			}
		}
		return &Error{Msg: what + " " + s}
	}
	stack := ""
	if st := o.Get("stack"); st != nil && !goja.IsUndefined(st) {
		stack = st.String()
	}
	if stack == "" {
		return &Error{Msg: v.String()}
	}
	stack = pcSuffix.ReplaceAllString(b.pos.stack(stack), "$1")
	lines := strings.Split(strings.TrimRight(stack, "\n"), "\n")
	// The first line is the message (which may span lines); frames start
	// with "at ".
	var msg, frames []string
	for _, l := range lines {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "at ") && len(msg) > 0 {
			if strings.Contains(t, preludeName) {
				continue
			}
			frames = append(frames, "\tat "+strings.TrimPrefix(t, "at "))
			continue
		}
		if len(frames) == 0 {
			msg = append(msg, l)
		}
	}
	e := &Error{Msg: strings.Join(msg, "\n"), Detail: strings.Join(frames, "\n")}
	for _, f := range frames {
		if m := posInFrame.FindStringSubmatch(strings.TrimSpace(f)); m != nil && !strings.Contains(f, "(native)") {
			e.Pos = m[1]
			break
		}
	}
	if name, ok := b.calledMissing(msg, e.Pos); ok {
		return b.noMethod(name, e.Pos)
	}
	return e
}

// noMember is goja's message for a call of a method an object lacks.
var noMember = regexp.MustCompile(`^TypeError: Object has no member '([^']+)'$`)

// calledMissing reports whether msg is the interpreter's error for a
// call at pos of a method the zap object lacks, and its name: the zap
// object's last read of a name it lacks was of that name, on that line.
func (b *builder) calledMissing(msg []string, pos string) (string, bool) {
	if len(msg) != 1 {
		return "", false
	}
	m := noMember.FindStringSubmatch(msg[0])
	// The read is placed at the start of zap.dir, the call at its
	// parenthesis: the line is what they share.
	if m == nil || m[1] != b.members.missed || line(pos) != line(b.members.missedAt) {
		return "", false
	}
	return m[1], true
}

// line is file:line of the position file:line:col.
func line(pos string) string {
	if i := strings.LastIndexByte(pos, ':'); i >= 0 {
		return pos[:i]
	}
	return pos
}

// limit interrupts the runtime when ctx ends, after opts.Timeout, or once
// the heap passes opts.MaxHeap. The returned function stops watching.
func limit(ctx context.Context, rt *goja.Runtime, opts Options) func() {
	done := make(chan struct{})
	stopTimer := func() bool { return false }
	if opts.Timeout > 0 {
		stopTimer = time.AfterFunc(opts.Timeout, func() {
			rt.Interrupt(interruption{&Error{
				Msg:  fmt.Sprintf("the config ran longer than %s", opts.Timeout),
				Hint: TimeHint,
			}})
		}).Stop
	}
	go func() {
		tick := time.NewTicker(heapPoll)
		defer tick.Stop()
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				rt.Interrupt(interruption{fmt.Errorf("the evaluation was canceled: %w", ctx.Err())})
				return
			case <-tick.C:
				metrics.Read(sample)
				if sample[0].Value.Kind() == metrics.KindUint64 && sample[0].Value.Uint64() > opts.MaxHeap {
					rt.Interrupt(interruption{&Error{
						Msg:  fmt.Sprintf("the config used more than %d MiB of memory", opts.MaxHeap>>20),
						Hint: MemoryHint,
					}})
					return
				}
			}
		}
	}()
	return func() {
		stopTimer()
		close(done)
	}
}
