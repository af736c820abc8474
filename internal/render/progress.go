package render

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/zap-go/zap/internal/escape"
	"github.com/zap-go/zap/pkg/events"
)

// OutputTail is how many of a failed step's last output lines the report
// shows.
const OutputTail = 20

// Progress renders a wetrun's event stream as text, one line per change as
// it ends, with a failed step's exit and output under it, then the tally.
// Given Live or Plain, it also shows the change under way.
type Progress struct {
	mu sync.Mutex
	w  io.Writer
	// detail collects the current change's step failures and skips, printed
	// under its line when it ends.
	detail []string
	// stepErr is the current change's failed step's error, and stepLine
	// the index of its line in detail.
	stepErr  string
	stepLine int
	// startedID and startedStep are the last step_started's: a
	// step_skipped for that step is a note (the protocol skips a step
	// after a failed one without starting it).
	startedID   string
	startedStep int
	status      *runStatus
}

// NewProgress writes to w.
func NewProgress(w io.Writer) *Progress { return &Progress{w: w} }

// Event renders one event.
func (p *Progress) Event(e *events.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.status != nil {
		p.status.event(e)
	}
	switch e.Event {
	case events.RunStarted:
		fmt.Fprintf(p.w, "Applying %d change(s):\n", e.Changes)
	case events.StepStarted:
		p.startedID, p.startedStep = e.ID, e.Step
	case events.StepFailed:
		p.stepFailed(e)
	case events.StepSkipped:
		if e.ID == p.startedID && e.Step == p.startedStep {
			// A note informs and has nothing to run; the plan showed
			// it, and the report doesn't call it skipped.
			return
		}
		p.detail = append(p.detail, fmt.Sprintf("step %d skipped: %s", e.Step, escape.Indent(e.Reason, "        ")))
	case events.ChangeOK:
		p.change("ok", e, "")
	case events.ChangeFailed:
		if p.stepErr != "" && p.stepErr != e.Error {
			// Not the step's own error (zap-exec copies it): the step's
			// is said under it.
			l := p.detail[p.stepLine]
			head, tail, _ := strings.Cut(l, ";")
			if tail != "" {
				tail = ";" + tail
			}
			p.detail[p.stepLine] = head + ": " + escape.Indent(p.stepErr, "        ") + tail
		}
		p.change("failed", e, Coded(escape.Indent(e.Error, "        "), e.Code))
	case events.ChangeSkipped:
		p.change("skipped", e, escape.Indent(e.Reason, "        "))
	case events.RunOK, events.RunFailed:
		parts := []string{fmt.Sprintf("%d ok", e.OK)}
		if e.Failed > 0 {
			parts = append(parts, fmt.Sprintf("%d failed", e.Failed))
		}
		if e.Skipped > 0 {
			parts = append(parts, fmt.Sprintf("%d skipped", e.Skipped))
		}
		fmt.Fprintf(p.w, "Applied: %s\n", strings.Join(parts, ", "))
	}
}

// Coded is a failure's message as the report says it: with its triage
// code after it in parentheses ("exited 3 (execution_failed)"), or alone
// when it has none. Apply's failed change and deploy's failed step both say
// it so.
func Coded(msg string, code events.Code) string {
	if code == "" {
		return msg
	}
	return msg + " (" + string(code) + ")"
}

// stepFailed notes a failed step under its change: its number, its exit
// status and the tail of its output. What failed is the change's own line
// (change_failed carries the step's error), so it is said once.
func (p *Progress) stepFailed(e *events.Event) {
	msg := fmt.Sprintf("step %d failed", e.Step)
	if e.Exit != nil {
		msg += fmt.Sprintf(" (exit %d)", *e.Exit)
	}
	p.stepErr, p.stepLine = e.Error, len(p.detail)
	if e.Output == "" {
		p.detail = append(p.detail, msg)
		return
	}
	lines := escape.Block(e.Output)
	if len(lines) > OutputTail {
		msg += fmt.Sprintf("; the last %d of its %d output lines:", OutputTail, len(lines))
		lines = lines[len(lines)-OutputTail:]
	} else {
		msg += "; its output:"
	}
	p.detail = append(p.detail, msg)
	for _, l := range lines {
		p.detail = append(p.detail, "  | "+l)
	}
}

func (p *Progress) change(mark string, e *events.Event, msg string) {
	fmt.Fprintf(p.w, "  %-7s  %s  %s", mark, escape.Line(e.ID), escape.Line(string(e.Type)))
	if msg != "" {
		fmt.Fprintf(p.w, ": %s", msg)
	}
	fmt.Fprintln(p.w)
	for _, d := range p.detail {
		fmt.Fprintf(p.w, "      %s\n", d)
	}
	p.detail, p.stepErr = nil, ""
}

// Close stops the status, erasing a line drawn on the terminal.
func (p *Progress) Close() {
	p.mu.Lock()
	st := p.status
	p.mu.Unlock()
	if st == nil {
		return
	}
	close(st.stop)
	<-st.done
	p.mu.Lock()
	st.clear()
	p.status = nil
	p.mu.Unlock()
}
