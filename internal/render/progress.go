package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/zap-go/zap/internal/escape"
	"github.com/zap-go/zap/pkg/events"
)

// Progress renders a wetrun's event stream as text, one line per change as
// it ends, with a failed step's error and output under it, then the tally.
type Progress struct {
	w io.Writer
	// detail collects the current change's step failures and skips, printed
	// under its line when it ends.
	detail []string
}

// NewProgress writes to w.
func NewProgress(w io.Writer) *Progress { return &Progress{w: w} }

// Event renders one event.
func (p *Progress) Event(e *events.Event) {
	switch e.Event {
	case events.RunStarted:
		fmt.Fprintf(p.w, "Applying %d change(s):\n", e.Changes)
	case events.StepFailed:
		msg := fmt.Sprintf("step %d failed", e.Step)
		if e.Error != "" {
			msg += ": " + escape.Indent(e.Error, "        ")
		}
		if e.Code != "" {
			msg += " (" + string(e.Code) + ")"
		}
		p.detail = append(p.detail, msg)
		if e.Output != "" {
			for _, l := range escape.Block(e.Output) {
				p.detail = append(p.detail, "  | "+l)
			}
		}
	case events.StepSkipped:
		p.detail = append(p.detail, fmt.Sprintf("step %d skipped: %s", e.Step, escape.Indent(e.Reason, "        ")))
	case events.ChangeOK:
		p.change("ok", e, "")
	case events.ChangeFailed:
		msg := escape.Indent(e.Error, "        ")
		if e.Code != "" {
			msg += " (" + string(e.Code) + ")"
		}
		p.change("failed", e, msg)
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

func (p *Progress) change(mark string, e *events.Event, msg string) {
	fmt.Fprintf(p.w, "  %-7s  %s  %s", mark, escape.Line(e.ID), escape.Line(string(e.Type)))
	if msg != "" {
		fmt.Fprintf(p.w, ": %s", msg)
	}
	fmt.Fprintln(p.w)
	for _, d := range p.detail {
		fmt.Fprintf(p.w, "      %s\n", d)
	}
	p.detail = nil
}
