package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/zap-go/zap/internal/escape"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// Pending lists the pending-trigger markers a pass read, one line each:
// "pending  nginx: a reload an earlier run owes".
func Pending(w io.Writer, markers []observation.Marker) {
	for _, m := range markers {
		fmt.Fprintf(w, "%-*s  %s: a %s an earlier run owes\n", markWidth, "owed", escape.Line(m.Service), escape.Line(string(m.Action)))
	}
}

// Warnings writes each warning of a pass (a pending-trigger marker for a
// service the config doesn't manage) as a "warning:" line, and reports
// whether it wrote any.
func Warnings(w io.Writer, warnings []string) bool {
	for _, s := range warnings {
		fmt.Fprintf(w, "warning: %s\n", escape.Indent(s, "  "))
	}
	return len(warnings) > 0
}

// Trigger writes a service change's trigger line: the action, and what
// fires it (the sources changing in this plan, a marker an earlier run
// left, or both).
func Trigger(w io.Writer, t *plan.Trigger, indent string) {
	if t == nil {
		return
	}
	var why []string
	if len(t.By) > 0 {
		why = append(why, "fired by "+names(t.By))
	}
	if t.Pending != "" {
		why = append(why, "a pending "+string(t.Pending)+" an earlier run owes")
	}
	fmt.Fprintf(w, "%strigger: %s if running (%s)\n", indent, escape.Line(string(t.Action)), strings.Join(why, "; "))
}

// heldBehind is what a resource held behind others waits on and would
// fire: "waits on a, b; would reload the service web, which is held".
func heldBehind(h plan.Hold) string {
	var parts []string
	if len(h.WaitsOn) > 0 {
		parts = append(parts, "waits on "+names(h.WaitsOn))
	}
	for _, f := range h.Triggers {
		parts = append(parts, fmt.Sprintf("would %s the service %s, which is held", escape.Line(string(f.Action)), escape.Line(f.ID)))
	}
	return strings.Join(parts, "; ")
}
