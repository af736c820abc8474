package zapcli

import (
	"bytes"
	"context"
	"slices"
	"strconv"

	"github.com/zap-go/zap/internal/stages"
	"github.com/zap-go/zap/internal/strict"
	"github.com/zap-go/zap/pkg/canon"
	"github.com/zap-go/zap/pkg/declaration"
)

// A preview pass (zap plan, a dry zap apply) starts zap-detect on the
// evaluator's output as soon as the evaluator answers, while zap reads the
// declaration, records it in the eval cache and checks the state directory:
// zap-detect reads the same declaration, and zap takes its answer where it
// would have started it. It does so only where nothing zap does in between
// decides how zap-detect runs or whether it may connect:
//
//   - the target is a remote host named with no reference at all (a local
//     target may first ask for sudo on the terminal, warmSudo; a host or
//     user given by reference is checked, and may be masked, first);
//   - GOGC, which zap-detect's environment depends on (UseGC), is the
//     operator's, or the declaration doesn't mention it;
//   - the host's last-run report, which zap reads before it would run
//     zap-detect, is one zap takes (a report zap refuses fails the command
//     before anything connects).
//
// zap-detect's stderr is held until zap takes its answer, so it goes
// through the masks zap sets up from the declaration. When zap fails
// before it would have run zap-detect, or runs it otherwise (another
// input, GOGC or arguments), the early one is stopped and its answer
// dropped.

// earlyDetect is a zap-detect started before zap read the declaration.
type earlyDetect struct {
	input  []byte
	gc     string
	args   []string
	cancel context.CancelFunc
	done   chan struct{}
	out    []byte
	stderr []byte
	err    error
}

// startEarlyDetect starts zap-detect on out, the evaluator's output, when a
// preview asked for it (s.earlyWanted) and the declaration allows it.
func (s *session) startEarlyDetect(ctx context.Context, out []byte) {
	if !s.earlyWanted || s.early != nil {
		return
	}
	gc := ""
	if s.a.getenv("GOGC") == "" {
		if bytes.Contains(out, []byte("GOGC")) {
			return
		}
		gc = strconv.Itoa(stages.GCPercent)
	}
	m, ok := canon.Members(out)
	if !ok {
		return
	}
	var t declaration.Target
	if raw, ok := m["target"]; !ok || strict.Decode(raw, &t) != nil || t.Local || len(t.Refs()) > 0 || t.Host == nil {
		return
	}
	// A last-run report zap would refuse stops it before it runs
	// zap-detect: then none is started early, so none connects.
	if s.store != nil {
		h, ok := t.Host.Plain()
		if !ok {
			return
		}
		l, err := s.store.Load(s.abs, h)
		if err != nil {
			return
		}
		s.read = &lastRead{host: h, loaded: l}
	}
	ctx, cancel := context.WithCancel(ctx)
	e := &earlyDetect{input: out, gc: gc, args: s.a.stageArgs(), cancel: cancel, done: make(chan struct{})}
	cmd := s.st.CommandGC(ctx, "zap-detect", gc, e.args...)
	cmd.Stdin = bytes.NewReader(out)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	s.early = e
	go func() {
		defer close(e.done)
		e.err = cmd.Run()
		e.out, e.stderr = stdout.Bytes(), stderr.Bytes()
	}()
}

// stopEarlyDetect stops an early zap-detect nothing took, and waits for it.
func (s *session) stopEarlyDetect() {
	if e := s.early; e != nil {
		s.early = nil
		e.cancel()
		<-e.done
	}
}

// runDetect runs zap-detect on input with args, or takes the answer of the
// early one when it was started exactly so.
func (s *session) runDetect(ctx context.Context, input []byte, args []string) ([]byte, error) {
	e := s.early
	if e == nil {
		return s.st.Run(ctx, "zap-detect", input, args...)
	}
	if !sameBytes(e.input, input) || e.gc != s.st.GC() || !slices.Equal(e.args, args) {
		s.stopEarlyDetect()
		return s.st.Run(ctx, "zap-detect", input, args...)
	}
	s.early = nil
	<-e.done
	e.cancel()
	if e.err != nil {
		return nil, s.st.Failure("zap-detect", e.err, e.stderr)
	}
	s.st.PassOn(e.stderr)
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
