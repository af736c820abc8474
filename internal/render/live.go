package render

import (
	"fmt"
	"io"
	"time"
	"unicode/utf8"

	"github.com/zap-go/zap/internal/escape"
	"github.com/zap-go/zap/pkg/events"
)

// The pace of a wetrun's status: how often it looks at the clock, when a
// step's elapsed time starts to show on a terminal, and, with no terminal,
// when a step still running is said again.
const (
	statusTick  = 250 * time.Millisecond
	showElapsed = time.Second
	plainFirst  = 10 * time.Second
	plainEvery  = 30 * time.Second
)

// runStatus shows the change under way beside a wetrun's report: on a
// terminal one line, drawn when the change starts and redrawn as its steps
// go (the step, and its elapsed time once it runs over a second), erased
// when the change ends, and showing a running step's last output line when
// zap-exec sends it (step_output, zap-exec --progress); with no terminal, plain lines: the change's start,
// and a step still running after 10 seconds and every 30 after.
type runStatus struct {
	w     io.Writer
	live  bool
	width int
	mask  func(string) string
	now   func() time.Time
	stop  chan struct{}
	done  chan struct{}

	id, typ string // the change under way; "" between changes
	step    int
	summary string
	out     string    // the step's last output line (step_output)
	stepAt  time.Time // zero when no step runs
	said    time.Duration
	drawn   bool
	shown   string // the line drawn
}

// Live shows the change under way on term, a terminal width columns wide
// (0 for 80), its text through mask; now is the clock.
func (p *Progress) Live(term io.Writer, width int, mask func(string) string, now func() time.Time) {
	if width <= 0 {
		width = 80
	}
	p.startStatus(&runStatus{w: term, live: true, width: width, mask: mask, now: now}, statusTick)
}

// Plain writes the change under way to w as plain lines; now is the clock.
func (p *Progress) Plain(w io.Writer, now func() time.Time) {
	p.startStatus(&runStatus{w: w, mask: func(s string) string { return s }, now: now}, statusTick)
}

// startStatus shows st, looking at the clock every tick (0: only when an
// event comes, for tests that tick by hand).
func (p *Progress) startStatus(st *runStatus, every time.Duration) {
	st.stop, st.done = make(chan struct{}), make(chan struct{})
	p.mu.Lock()
	p.status = st
	p.mu.Unlock()
	if every == 0 {
		close(st.done)
		return
	}
	go func() {
		defer close(st.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-st.stop:
				return
			case <-t.C:
				p.mu.Lock()
				st.tick()
				p.mu.Unlock()
			}
		}
	}()
}

// event moves the status on with e; it is called before e's report line
// is written, so a line drawn is erased first.
func (st *runStatus) event(e *events.Event) {
	switch e.Event {
	case events.ChangeStarted:
		st.id, st.typ, st.step, st.summary, st.stepAt = e.ID, string(e.Type), 0, "", time.Time{}
		if st.live {
			st.draw()
		} else {
			fmt.Fprintf(st.w, "  %-7s  %s  %s\n", "started", escape.Line(e.ID), escape.Line(string(e.Type)))
		}
	case events.StepStarted:
		st.step, st.summary, st.out, st.stepAt, st.said = e.Step, e.Summary, "", st.now(), 0
		if st.live {
			st.draw()
		}
	case events.StepOutput:
		if st.live && e.ID == st.id && e.Step == st.step && !st.stepAt.IsZero() {
			st.out = e.Line
			st.draw()
		}
	case events.StepOK, events.StepFailed, events.StepSkipped:
		st.stepAt = time.Time{}
	case events.ChangeOK, events.ChangeFailed, events.ChangeSkipped, events.RunOK, events.RunFailed:
		st.id, st.stepAt = "", time.Time{}
		st.clear()
	}
}

// tick redraws the terminal's line with the step's elapsed time, or says
// with no terminal that a step is still running.
func (st *runStatus) tick() {
	if st.id == "" || st.stepAt.IsZero() {
		return
	}
	d := st.now().Sub(st.stepAt)
	if st.live {
		if d >= showElapsed {
			st.draw()
		}
		return
	}
	next := plainFirst
	if st.said > 0 {
		next = st.said + plainEvery
	}
	if d >= next {
		st.said = next
		fmt.Fprintf(st.w, "  %-7s  %s  %s: step %d still running after %s\n", "...", escape.Line(st.id), escape.Line(st.typ), st.step, elapsed(next))
	}
}

// draw writes the terminal's line, when it changed: the change, its step,
// and the step's elapsed time past a second, the step's summary cut so the
// line fits the terminal's width; with an output line, the summary gives
// it two thirds of the room: "› line".
func (st *runStatus) draw() {
	head := st.mask(fmt.Sprintf("  %-7s  %s  %s", "running", escape.Line(st.id), escape.Line(st.typ)))
	line := head
	if st.step > 0 {
		head += fmt.Sprintf(": step %d ", st.step)
		tail := ""
		if !st.stepAt.IsZero() {
			if d := st.now().Sub(st.stepAt); d >= showElapsed {
				tail = " · " + elapsed(d)
			}
		}
		room := st.width - 1 - utf8.RuneCountInString(head) - utf8.RuneCountInString(tail)
		text := cut(st.mask(escape.Line(st.summary)), room)
		if st.out != "" {
			out := " › " + st.mask(escape.Line(st.out))
			sum := cut(text, max(room-utf8.RuneCountInString(out), room/3))
			text = sum + cut(out, room-utf8.RuneCountInString(sum))
		}
		line = head + text + tail
	}
	line = cut(line, st.width-1)
	if st.drawn && line == st.shown {
		return
	}
	fmt.Fprintf(st.w, "\r%s\x1b[K", line)
	st.drawn, st.shown = true, line
}

// clear erases the terminal's line, if one is drawn.
func (st *runStatus) clear() {
	if st.drawn {
		fmt.Fprint(st.w, "\r\x1b[K")
		st.drawn, st.shown = false, ""
	}
}

// elapsed is a duration as a status shows it: whole seconds, and minutes
// past one.
func elapsed(d time.Duration) string {
	s := int(d / time.Second)
	if s < 60 {
		return fmt.Sprintf("%ds", s)
	}
	return fmt.Sprintf("%dm%02ds", s/60, s%60)
}

// cut shortens s to at most n characters, ending it with … when cut.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n < 1 {
		return ""
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
