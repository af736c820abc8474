package sshhost

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/mask"
	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/internal/ops/asroot"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/events"
	"github.com/zap-go/zap/pkg/plan"
)

// Pipeline runs steps in one session (execute.Pipeliner): the session's
// command is `sh`, the step driver, and its stdin carries, step after step,
// the very command and stdin each step's own session would have had:
//
//	sudo -n sh -s -- 'PATH' 'MODE' 'OWNER' 'GROUP' <<'ZAP_STEP_<token>_<k>' &
//	<the step's stdin: ops.Input, ops.PutScriptInput>
//	ZAP_STEP_<token>_<k>
//	zap_p=$!; wait "$zap_p"; zap_s=$?; zap_p=
//	printf '\n%s %s\n' ZAP_END_<token> <k> >&2; printf '\n%s %s %s\n' ZAP_END_<token> <k> "$zap_s"
//	[ "$zap_s" = 0 ] || exit 0
//
// So every write is still one `sudo -n sh -s` reading the constant script
// (a login operation's `sh -s` goes without sudo), the here-document hands
// it exactly its input, and the driver ends at the first step that fails:
// none after it runs. The token is random per batch, so no input can end
// its here-document early or forge an end line; an input holding it
// anyway is refused. Puts, dirs and links are written ahead of their turn,
// within a window (at most windowSteps steps sent and not yet ended, and
// at most about windowWork of them at the pace the last ends came), so a
// run pays a round trip per window, not per write; an operation (a
// script whose time is its own) is written only once every step before it
// ended, and nothing after it until it ended. When the connection is lost
// the steps the driver was already sent may still run (Unknown names how
// many), and the ends are read in order: each step's stdout and
// stderr are what the driver's streams carry between two end lines (less
// the newline the end line opens with), after what the session printed
// before the first step (a login shell's notices), which each step's own
// session would have printed too. A step runs in the background of the
// driver, which waits for it: on SIGTERM the driver passes it to the step
// (sudo passes it to the script) and exits.
//
// A put or link is handed one more argument on stdin, the run's list of
// directories cleaned of killed writers' leftovers (cleaned), and one that
// cleans its directory says so on its stdout's last line; so a run reads
// each directory once for leftovers, not once per write.
//
// A step past its limit (counted from the end of the step before it), or a
// cancelled run, sends the session SIGTERM, then SIGKILL after opGrace:
// the step timed out or was interrupted and none after it runs. A session
// that ends before a step's end line is a dropped connection (transient).
func (e *Exec) Pipeline(ctx context.Context, steps []execute.BatchStep) execute.Batch {
	b := &driverRun{e: e, mask: execute.MaskOf(ctx), steps: steps, changed: make(chan struct{}, 1), ended: make(chan struct{}, 1), started: time.Now(), stopAt: len(steps)}
	for i, s := range steps {
		if s.Op != nil && s.Op.Privilege == plan.Login {
			continue
		}
		if err := e.sudo(ctx); err != nil {
			// The steps before the first root one run; that one fails as
			// its own session would have.
			b.stopAt, b.stopErr = i, err
		}
		break
	}
	if b.stopAt > 0 {
		b.start(steps[:b.stopAt])
	}
	return b
}

var _ execute.Pipeliner = (*Exec)(nil)

// driverRun is a Pipeline under way.
type driverRun struct {
	e       *Exec
	mask    *mask.Masker // what each section's tail masks (execute.WithMask)
	steps   []execute.BatchStep
	stopAt  int   // the steps at and after it don't run in the session
	stopErr error // the step stopAt's failure, when it is one of steps
	next    int   // the step Next waits for (0-based)
	started time.Time

	s        *ssh.Session
	startErr error
	waited   chan struct{} // closed once the session ended
	waitErr  error
	changed  chan struct{} // a section ended, or a stream or the session
	ended    chan struct{} // the same, for the writer (Next takes changed)

	mu      sync.Mutex
	out     splitter // stdout
	errs    splitter // stderr
	ends    []time.Time
	stopped bool
	sent    int  // the steps written to the session (flushed)
	lost    bool // the session ended before the step Next waited for did
	// live are the streams of the LiveLine the step Next waits for follows
	// (execute.WithLive), stdout's then stderr's; nil while none does.
	live [2]io.Writer
}

// section is what one stream carried for one step.
type section struct {
	tail   *execute.Tail
	n      int64
	status int
}

// splitter collects one stream's sections: the 0th what came before the
// first step.
type splitter struct {
	done []section
	cur  section
	eof  bool
	// held is a newline read and not yet written to cur: it belongs to
	// cur unless an end line follows it.
	held bool
}

// sofar is what cur holds so far, its held newline included.
func (sp *splitter) sofar() string {
	if sp.held {
		return sp.cur.tail.String() + "\n"
	}
	return sp.cur.tail.String()
}

// start opens the session and starts writing the driver and reading its
// streams.
func (b *driverRun) start(steps []execute.BatchStep) {
	var tok [16]byte
	rand.Read(tok[:])
	token := hex.EncodeToString(tok[:])
	b.out.cur = section{tail: execute.MaskedTail(b.mask)}
	b.errs.cur = section{tail: execute.MaskedTail(b.mask)}
	s, err := b.e.c.client.NewSession()
	if err != nil {
		b.startErr = execute.Errorf(events.Transient, "the connection to %s is gone: %v", b.e.c.Config.Host, err)
		return
	}
	stdin, err1 := s.StdinPipe()
	stdout, err2 := s.StdoutPipe()
	stderr, err3 := s.StderrPipe()
	if err := errors.Join(err1, err2, err3); err != nil {
		s.Close()
		b.startErr = execute.Errorf(events.Transient, "start a session on %s: %v", b.e.c.Config.Host, err)
		return
	}
	if err := s.Start("sh"); err != nil {
		s.Close()
		b.startErr = execute.Errorf(events.Transient, "start a session on %s: %v", b.e.c.Config.Host, err)
		return
	}
	b.s, b.waited = s, make(chan struct{})
	end := "ZAP_END_" + token
	var reading sync.WaitGroup
	reading.Add(2)
	go func() { defer reading.Done(); b.read(stdout, end, &b.out, true) }()
	go func() { defer reading.Done(); b.read(stderr, end, &b.errs, false) }()
	go func() {
		reading.Wait()
		b.waitErr = s.Wait()
		close(b.waited)
		b.notify()
	}()
	go b.write(stdin, token, steps)
}

// driverStart is what the driver runs first: the trap that passes SIGTERM
// to the step under way, and the end lines of the 0th section.
const driverStart = `trap '[ -z "$zap_p" ] || kill -TERM "$zap_p" 2>/dev/null; exit 143' TERM
printf '\n%%s 0\n' %[1]s >&2; printf '\n%%s 0 0\n' %[1]s
`

// write writes the driver's text to stdin, step after step, and closes it
// after the last; a step the session won't take (it ended) stops it, and
// so does a step that ended failing (the driver stopped there). It writes
// a step once admit lets it: within the window, or, for an operation,
// once every step before it ended with status 0. What a window costs is
// that the driver may go on past a partition the operator reports as the
// step's dropped connection, running steps already sent: the runner
// reports those as unknown, not skipped (Unknown, execute.Unknowns), and
// the next plan's read establishes what stands (docs/architecture.md).
func (b *driverRun) write(stdin io.WriteCloser, token string, steps []execute.BatchStep) {
	defer stdin.Close()
	w := bufio.NewWriterSize(stdin, 64<<10)
	end := vocab.Quote("ZAP_END_" + token)
	if _, err := fmt.Fprintf(w, driverStart, end); err != nil {
		return
	}
	for i, s := range steps {
		k := strconv.Itoa(i + 1)
		cmd, input, err := stepText(s, b.e.cleaned.list(laneRoot))
		delim := "ZAP_STEP_" + token + "_" + k
		if err == nil && strings.Contains(input, token) {
			err = errors.New("the step's input holds the batch's delimiter")
		}
		if err != nil {
			// The driver reports the step failed with nothing run.
			fmt.Fprintf(w, "printf '%%s\\n' %s >&2\nzap_s=93\n", vocab.Quote(err.Error()))
		} else {
			fmt.Fprintf(w, "%s <<'%s' &\n%s", cmd, delim, input)
			if !strings.HasSuffix(input, "\n") {
				w.WriteString("\n")
			}
			fmt.Fprintf(w, "%s\nzap_p=$!; wait \"$zap_p\"; zap_s=$?; zap_p=\n", delim)
		}
		fmt.Fprintf(w, "printf '\\n%%s %%s\\n' %s %s >&2; printf '\\n%%s %%s %%s\\n' %s %s \"$zap_s\"\n[ \"$zap_s\" = 0 ] || exit 0\n", end, k, end, k)
		if w.Flush() != nil {
			return
		}
		b.mu.Lock()
		b.sent = i + 1
		b.mu.Unlock()
		if i+1 < len(steps) && !b.admit(i+1) {
			return
		}
	}
}

// The write-ahead window: at most windowSteps steps sent and not yet
// ended, and no more than windowWork of them at the pace of the last
// paceEnds ends; a put whose content is larger than aheadBytes is sent
// only once every step before it ended, as an operation is.
const (
	windowSteps = 32
	windowWork  = time.Second
	paceEnds    = 8
	aheadBytes  = 256 << 10
)

// aheadable reports whether s may be written before the step before it
// ended: a put (of at most aheadBytes), a dir or a link, whose work is
// Zap's own and short.
func aheadable(s execute.BatchStep) bool {
	return s.Op == nil && (s.Put == nil || len(s.Put.Content) <= aheadBytes)
}

// admit waits until step i (0-based) may be written, and reports whether
// it may; false once a step that ended failed (the driver stopped there),
// a stream ended or the batch stopped.
func (b *driverRun) admit(i int) bool {
	seq := !aheadable(b.steps[i]) || !aheadable(b.steps[i-1])
	for {
		b.mu.Lock()
		ended := max(min(len(b.out.done), len(b.errs.done))-1, 0)
		failed := ended > 0 && b.out.done[ended].status != 0
		gone := b.out.eof || b.errs.eof || b.stopped
		var ok bool
		if seq {
			ok = ended >= i
		} else {
			ok = i-ended < b.window()
		}
		b.mu.Unlock()
		if failed || gone {
			return false
		}
		if ok {
			return true
		}
		<-b.ended
	}
}

// window is how many steps may be sent and not yet ended: windowWork at
// the pace of the last paceEnds ends (1 until two ends came), at most
// windowSteps. b.mu is held.
func (b *driverRun) window() int {
	n := len(b.ends)
	if n < 2 {
		return 1
	}
	k := min(n-1, paceEnds)
	pace := b.ends[n-1].Sub(b.ends[n-1-k]) / time.Duration(k)
	if pace <= 0 {
		return windowSteps
	}
	return int(min(max(windowWork/pace, 1), windowSteps))
}

// Unknown is, after Next reported the connection lost, how many of the
// steps after that one the driver had been sent: they may have run
// (execute.Unknowns).
func (b *driverRun) Unknown() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.lost {
		return 0
	}
	return max(b.sent-b.next, 0)
}

// stepText is a step's command and its stdin, as its own session would
// have them, but that a put or link is handed on stdin cleaned, the list of
// directories the run's writes cleaned already (lib/stage.sh's
// zap_cleaned), and reports its own clean on stdout (endSection).
func stepText(s execute.BatchStep, cleaned string) (cmd, input string, err error) {
	var name plan.OpName
	var args []string
	switch {
	case s.Put != nil:
		name = plan.OpPut
	case s.Dir != nil:
		name, args = plan.OpDir, []string{s.Dir.Path, s.Dir.Mode, s.Dir.Owner, s.Dir.Group}
	case s.Link != nil:
		name, args = plan.OpLink, []string{s.Link.Path}
	case s.Op != nil:
		argv, in := s.Op.Split()
		return opCommand(s.Op, argv), ops.Input(s.Op.Script, in...), nil
	}
	script, ok := ops.Script(name)
	if !ok {
		return "", "", fmt.Errorf("this zap has no %s script", name)
	}
	switch {
	case s.Put != nil:
		argv, in := asroot.PutArgs(s.Put, "")
		in = append(in, "", cleaned)
		args, input = argv, string(ops.PutScriptInput(script.Text, s.Put.Content, in...))
	case s.Link != nil:
		input = ops.Input(script.Text, s.Link.Target, cleaned)
	default:
		input = script.Text
	}
	return rootCommand(args), input, nil
}

// read splits a stream of the driver into sections at its end lines; the
// stdout ones carry the step's exit status.
func (b *driverRun) read(r io.Reader, end string, sp *splitter, status bool) {
	br := bufio.NewReaderSize(r, 64<<10)
	endLine := []byte(end + " ")
	atStart := true
	for {
		chunk, err := br.ReadSlice('\n')
		if atStart && bytes.HasPrefix(chunk, endLine) && err == nil {
			b.endSection(sp, chunk[len(endLine):len(chunk)-1], status)
			continue
		}
		if len(chunk) > 0 {
			b.mu.Lock()
			if sp.held {
				sp.cur.tail.Write([]byte("\n"))
				sp.cur.n++
			}
			data := chunk
			sp.held = data[len(data)-1] == '\n'
			if sp.held {
				data = data[:len(data)-1]
			}
			sp.cur.tail.Write(data)
			sp.cur.n += int64(len(data))
			atStart = sp.held
			if w := b.live[liveIndex(status)]; w != nil {
				w.Write(chunk)
			}
			b.mu.Unlock()
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			b.mu.Lock()
			sp.eof = true
			b.mu.Unlock()
			b.notify()
			return
		}
	}
}

// endSection ends sp's section at an end line (its fields after the
// token: the step's number and, on stdout, its status) and opens the next
// one with the 0th section's bytes.
func (b *driverRun) endSection(sp *splitter, fields []byte, status bool) {
	f := strings.Fields(string(fields))
	b.mu.Lock()
	defer b.mu.Unlock()
	cur := sp.cur
	if status && len(f) == 2 {
		cur.status, _ = strconv.Atoi(f[1])
	}
	sp.done = append(sp.done, cur)
	if k := len(sp.done) - 1; status && cur.status == 0 && k > 0 && k <= len(b.steps) &&
		(b.steps[k-1].Put != nil || b.steps[k-1].Link != nil) {
		b.e.cleaned.add(laneRoot, cur.tail.String())
	}
	sp.held = false
	next := execute.MaskedTail(b.mask)
	next.Write([]byte(sp.done[0].tail.String()))
	sp.cur = section{tail: next, n: sp.done[0].n}
	if min(len(b.out.done), len(b.errs.done)) > len(b.ends) {
		b.ends = append(b.ends, time.Now())
	}
	b.notify()
}

// liveIndex is the index in driverRun.live of stdout (status) or stderr.
func liveIndex(stdout bool) int {
	if stdout {
		return 0
	}
	return 1
}

// follow tees what the driver's streams carry from now on into the
// LiveLine ctx carries, if any, until the returned func is called: a step's
// output read before its Next began isn't followed, which costs the live
// line only its first moment.
func (b *driverRun) follow(ctx context.Context) func() {
	l := execute.Live(ctx)
	if l == nil {
		return func() {}
	}
	o, e := l.Streams()
	b.mu.Lock()
	b.live = [2]io.Writer{o, e}
	b.mu.Unlock()
	return func() {
		b.mu.Lock()
		b.live = [2]io.Writer{}
		b.mu.Unlock()
	}
}

func (b *driverRun) notify() {
	for _, c := range []chan struct{}{b.changed, b.ended} {
		select {
		case c <- struct{}{}:
		default:
		}
	}
}

// Next waits for the next step's end.
func (b *driverRun) Next(ctx context.Context) error {
	i := b.next
	b.next++
	switch {
	case i == b.stopAt && b.stopErr != nil:
		return b.stopErr
	case i >= b.stopAt:
		return execute.Errorf(events.Permanent, "the batch ended before this step")
	case b.startErr != nil:
		err := b.startErr
		b.startErr = execute.Errorf(events.Transient, "the batch's session on %s never started", b.e.c.Config.Host)
		return err
	}
	limit := time.Duration(0)
	if op := b.steps[i].Op; op != nil {
		limit = op.Timeout
	}
	defer b.follow(ctx)()
	var timeout <-chan time.Time
	if limit > 0 {
		b.mu.Lock()
		begun := b.started
		if len(b.ends) > i {
			begun = b.ends[i]
		}
		b.mu.Unlock()
		t := time.NewTimer(time.Until(begun.Add(limit)))
		defer t.Stop()
		timeout = t.C
	}
	for {
		b.mu.Lock()
		res, ok := b.result(i)
		b.mu.Unlock()
		if ok {
			return b.stepError(i, res)
		}
		select {
		case <-b.changed:
		case <-timeout:
			b.stop()
			b.mu.Lock()
			out := execute.JoinOutput(b.out.sofar(), b.errs.sofar())
			b.mu.Unlock()
			return &execute.TimeoutError{After: limit, Output: out}
		case <-ctx.Done():
			b.stop()
			return fmt.Errorf("interrupted: %w", ctx.Err())
		}
	}
}

// result is the step i's session result (0-based), once both its sections
// ended or the session did; ok is false while it runs. b.mu is held.
func (b *driverRun) result(i int) (sessionResult, bool) {
	k := i + 1
	if len(b.out.done) > k && len(b.errs.done) > k {
		o, e := b.out.done[k], b.errs.done[k]
		return sessionResult{status: o.status, stdout: o.tail.String(), stderr: e.tail.String(), outBytes: o.n}, true
	}
	select {
	case <-b.waited:
	default:
		return sessionResult{}, false
	}
	if !b.stopped {
		b.lost = true
	}
	var ee *ssh.ExitError
	if errors.As(b.waitErr, &ee) && ee.Signal() == "" && !b.stopped {
		return sessionResult{err: execute.Errorf(events.Transient, "the session on %s ended (exit %d) before the step did", b.e.c.Config.Host, ee.ExitStatus())}, true
	}
	return sessionResult{err: execute.Errorf(events.Transient, "the connection to %s dropped before the step ended", b.e.c.Config.Host)}, true
}

// stepError is the step i's error, as its own session's would be.
func (b *driverRun) stepError(i int, r sessionResult) error {
	s := b.steps[i]
	switch {
	case s.Op != nil:
		return opError(s.Op, r)
	case s.Put != nil:
		return rootError(plan.OpPut, r)
	case s.Dir != nil:
		return rootError(plan.OpDir, r)
	}
	return rootError(plan.OpLink, r)
}

// stop ends the session: SIGTERM, which the driver passes to the step under
// way, then SIGKILL after opGrace.
func (b *driverRun) stop() {
	b.mu.Lock()
	if b.s == nil || b.stopped {
		b.mu.Unlock()
		return
	}
	b.stopped = true
	b.mu.Unlock()
	b.notify()
	b.s.Signal(ssh.SIGTERM)
	select {
	case <-b.waited:
	case <-time.After(opGrace):
		b.s.Signal(ssh.SIGKILL)
	}
	b.s.Close()
	<-b.waited
}

// Close ends the batch, stopping a step under way.
func (b *driverRun) Close() {
	if b.s == nil {
		return
	}
	select {
	case <-b.waited:
		b.s.Close()
	default:
		b.stop()
	}
}
