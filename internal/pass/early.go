package pass

import (
	"bytes"
	"context"
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
//     target may first ask for sudo on the terminal, BeforeDetect; a host or
//     user given by reference is checked, and may be masked, first);
//   - GOGC, which zap-detect's environment depends on (UseGC), is the
//     operator's, or the declaration doesn't mention it;
//   - the host's last-run report, which zap reads before it would run
//     zap-detect, is one zap takes (a report zap refuses fails the command
//     before anything connects). zap-detect's process is started while
//     zap reads it, its input held back (stages.StartHeld), and gets the
//     declaration only once the report is taken: stopped unfed, it read
//     nothing, so it connected nowhere.
//
// zap-detect's stderr is held until zap takes its answer, so it goes
// through the masks zap sets up from the declaration. When zap fails
// before it would have run zap-detect, or runs it otherwise (another
// input, GOGC or arguments), the early one is stopped and its answer
// dropped.
//
// What it saves, measured by testdata/bench/ssh.sh on 2026-12-02 (2 cores,
// loopback sshd, converged files, median of 11 runs, two runs each of a
// build with and without it, side by side on a quiet machine): 200 files
// 556 and 598 ms with it, 602 and 609 ms without; 2,000 files 1,199 and
// 1,223 ms with, 1,211 and 1,275 ms without. About 30 ms, or 5% of a
// 200-file plan whose budget is 1.5 times the floor's 360-390 ms; on a
// loaded machine (load average 10) the two were within each other's noise.

// startEarlyDetect starts zap-detect on out, the evaluator's output, when a
// preview asked for it (s.earlyWanted) and the declaration allows it.
func (s *Session) startEarlyDetect(ctx context.Context, out []byte) {
	if !s.earlyWanted || s.early != nil {
		return
	}
	gc := ""
	if s.env.Getenv("GOGC") == "" {
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
	h, ok := t.Host.Plain()
	if s.Store != nil && !ok {
		return
	}
	// zap-detect starts with its input held back while zap reads the
	// last-run report: a report zap would refuse stops zap before it runs
	// zap-detect, and then this one is stopped without ever having read
	// the declaration, so it can't connect.
	e := s.Stages.StartHeld(ctx, "zap-detect", out, gc, s.detectArgsFor(mayTrack(out))...)
	if s.Store != nil {
		l, err := s.Store.Load(s.Abs, h)
		if err != nil {
			e.Stop()
			return
		}
		s.read = &lastRead{host: h, loaded: l}
	}
	e.Feed()
	s.early = e
}

// stopEarlyDetect stops an early zap-detect nothing took, and waits for it.
func (s *Session) stopEarlyDetect() {
	if e := s.early; e != nil {
		s.early = nil
		e.Stop()
	}
}

// runDetect runs zap-detect on input with args, or takes the answer of the
// early one when it was started exactly so.
func (s *Session) runDetect(ctx context.Context, input []byte, args []string) ([]byte, error) {
	e := s.early
	s.early = nil
	return s.Stages.RunOrTake(ctx, e, "zap-detect", input, args...)
}
