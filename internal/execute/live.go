package execute

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/zap-go/zap/internal/mask"
	"github.com/zap-go/zap/pkg/events"
)

// The bounds of a step_output event: its line is the first LiveLineLimit
// bytes of the step's last complete output line, as masked; at most one is
// written every LiveEvery for a step, and only when the line changed. A line
// is read up to liveHeld bytes; the rest of a longer one is dropped.
const (
	LiveLineLimit = 200
	LiveEvery     = 250 * time.Millisecond
	liveHeld      = 4 << 10
)

// LiveLine follows a running step's output for its last complete line: a
// line ends at \n or \r (a progress meter redraws with \r), and a line of
// nothing but blanks doesn't count. Its stdout and stderr are followed
// apart, so their partial lines never mix. It is safe for concurrent use.
type LiveLine struct {
	mu    sync.Mutex
	part  [2][]byte
	cut   [2]bool
	last  string
	long  bool // last was cut at liveHeld
	taken string
	fresh bool
}

// Streams returns the writers a host tees a command's stdout and stderr
// into.
func (l *LiveLine) Streams() (stdout, stderr io.Writer) {
	return liveStream{l, 0}, liveStream{l, 1}
}

type liveStream struct {
	l *LiveLine
	i int
}

func (s liveStream) Write(p []byte) (int, error) {
	l := s.l
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		j := bytes.IndexAny(p, "\r\n")
		chunk := p
		if j >= 0 {
			chunk = p[:j]
		}
		if room := liveHeld - len(l.part[s.i]); len(chunk) > room {
			chunk, l.cut[s.i] = chunk[:max(room, 0)], true
		}
		l.part[s.i] = append(l.part[s.i], chunk...)
		if j < 0 {
			break
		}
		if line := string(l.part[s.i]); strings.TrimSpace(line) != "" {
			l.last, l.long, l.fresh = line, l.cut[s.i], true
		}
		l.part[s.i], l.cut[s.i] = l.part[s.i][:0], false
		p = p[j+1:]
	}
	return n, nil
}

// Take returns the last complete line and whether it was cut at liveHeld,
// when a line came since the last Take and differs from the one it
// returned; ok is false otherwise.
func (l *LiveLine) Take() (line string, long, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.fresh || l.last == l.taken {
		l.fresh = false
		return "", false, false
	}
	l.fresh, l.taken = false, l.last
	return l.last, l.long, true
}

type liveKey struct{}

// WithLive returns ctx carrying l: a host running a command under it tees
// the command's output into l.Streams, besides keeping its own tail.
func WithLive(ctx context.Context, l *LiveLine) context.Context {
	return context.WithValue(ctx, liveKey{}, l)
}

// Live returns the LiveLine ctx carries (WithLive), or nil.
func Live(ctx context.Context) *LiveLine {
	l, _ := ctx.Value(liveKey{}).(*LiveLine)
	return l
}

// LiveStreams tees stdout and stderr into the LiveLine ctx carries (WithLive)
// and into the Captured it carries (WithCapture); with neither it returns
// them as they are.
func LiveStreams(ctx context.Context, stdout, stderr io.Writer) (io.Writer, io.Writer) {
	if c := capturedOf(ctx); c != nil {
		stdout, stderr = io.MultiWriter(stdout, c.Stdout), io.MultiWriter(stderr, c.Stderr)
	}
	l := Live(ctx)
	if l == nil {
		return stdout, stderr
	}
	o, e := l.Streams()
	return io.MultiWriter(stdout, o), io.MultiWriter(stderr, e)
}

// LiveText is line as a step_output event carries it: masked, and cut to
// LiveLineLimit bytes (at a character's start, ending in …). A line cut at
// liveHeld is masked only as far as its bytes decide: a secret that runs
// past the cut is dropped, not shown in part.
func LiveText(m *mask.Masker, line string, long bool) string {
	if long {
		var b strings.Builder
		mask.NewWriter(&b, m).Write([]byte(line))
		line = b.String()
	} else {
		line = m.String(line)
	}
	line = strings.ToValidUTF8(line, "\uFFFD")
	if len(line) <= LiveLineLimit {
		return line
	}
	end := LiveLineLimit - len("…")
	for end > 0 && !utf8.RuneStart(line[end]) {
		end--
	}
	return line[:end] + "…"
}

// watched runs do, the run's step n of change id; with r.Live it follows
// the step's output and writes a step_output event for its last line at
// most every LiveEvery, when it changed. werr is an event that couldn't be
// written.
func (r *Runner) watched(ctx context.Context, id string, n int, do func(context.Context) error) (err, werr error) {
	if !r.Live {
		return do(ctx), nil
	}
	l := &LiveLine{}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(LiveEvery)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				line, long, ok := l.Take()
				if !ok {
					continue
				}
				if werr = r.emit(&events.Event{Event: events.StepOutput, ID: id, Step: n, Line: LiveText(r.Mask, line, long)}); werr != nil {
					return
				}
			}
		}
	}()
	err = do(WithLive(ctx, l))
	close(stop)
	<-done
	return err, werr
}
