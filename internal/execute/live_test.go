package execute

import (
	"context"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/mask"
)

// A running step's last line: only a complete one, stdout's and stderr's
// partial lines apart, a \r-redrawn meter's last state, blank lines not
// counting; Take gives a line once, and only when it changed.
func TestLiveLineLastCompleteLine(t *testing.T) {
	l := &LiveLine{}
	out, errw := l.Streams()
	take := func(want string, wantOK bool) {
		t.Helper()
		got, _, ok := l.Take()
		if ok != wantOK || got != want {
			t.Fatalf("Take = %q, %v; want %q, %v", got, ok, want, wantOK)
		}
	}
	take("", false)
	out.Write([]byte("work"))
	take("", false) // not complete yet
	errw.Write([]byte("warn: x\n"))
	take("warn: x", true)
	out.Write([]byte("ing 1\n\n   \n"))
	take("working 1", true)
	take("", false) // already taken
	out.Write([]byte("working 1\n"))
	take("", false) // the same line again: no change
	out.Write([]byte("10%\r20%\r30%"))
	take("20%", true)
	out.Write([]byte("\nworking 2\nworking 3\n"))
	take("working 3", true) // only the last of a burst
}

// A line longer than what is held is cut, and a secret running past the cut
// is dropped rather than shown in part; the event's text is at most
// LiveLineLimit bytes, cut at a character's start, masked before it is cut.
func TestLiveTextBounds(t *testing.T) {
	m := mask.New(map[string]string{"TOKEN": "hunter2-secret"})
	l := &LiveLine{}
	out, _ := l.Streams()
	out.Write([]byte(strings.Repeat("a", liveHeld-7) + "hunter2-secret tail\n"))
	line, long, ok := l.Take()
	if !ok || !long || len(line) != liveHeld {
		t.Fatalf("Take = %d bytes, long %v, ok %v; want %d, cut", len(line), long, ok, liveHeld)
	}
	if got := LiveText(m, line, long); strings.Contains(got, "hunter") || len(got) > LiveLineLimit {
		t.Fatalf("LiveText = %q", got)
	}
	if got := LiveText(m, "token=hunter2-secret done", false); got != "token=[MASKED:TOKEN] done" {
		t.Fatalf("LiveText masks as %q", got)
	}
	got := LiveText(m, strings.Repeat("é", 150), false)
	if len(got) > LiveLineLimit || !strings.HasSuffix(got, "é…") || !strings.HasPrefix(got, "éé") {
		t.Fatalf("LiveText cut to %d bytes: %q", len(got), got)
	}
	secretAtCut := strings.Repeat("b", LiveLineLimit-5) + "hunter2-secret"
	if got := LiveText(m, secretAtCut, false); strings.Contains(got, "hunt") {
		t.Fatalf("a secret at the cut shows in part: %q", got)
	}
}

// Without a LiveLine in the context, a host's streams are its tails alone.
func TestLiveStreamsWithout(t *testing.T) {
	a, b := NewTail(10), NewTail(10)
	o, e := LiveStreams(context.Background(), a, b)
	if o != a || e != b {
		t.Fatal("streams teed with no LiveLine")
	}
	l := &LiveLine{}
	o, _ = LiveStreams(WithLive(context.Background(), l), a, b)
	o.Write([]byte("seen\n"))
	if got, _, ok := l.Take(); !ok || got != "seen" || a.String() != "seen\n" {
		t.Fatalf("teed: line %q, tail %q", got, a.String())
	}
}
