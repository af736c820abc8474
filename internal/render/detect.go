package render

import (
	"fmt"
	"io"

	"github.com/zap-go/zap/internal/escape"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// marks are the words the verdicts are listed with.
var marks = map[observation.Verdict]string{
	observation.Converged:    "ok",
	observation.Drifted:      "drift",
	observation.Absent:       "absent",
	observation.Undetermined: "?",
}

// Mark is the word a verdict is listed with by zap detect and zap status;
// one it doesn't know, as it is.
func Mark(v observation.Verdict) string {
	if m, ok := marks[v]; ok {
		return m
	}
	return string(v)
}

// markWidth aligns the ids after the longest mark ("absent").
const markWidth = 6

// Detect writes one detection pass raw: the UNVERIFIABLE banner when a
// reference was unset, the header, then one line per resource with its mark
// (ok, drift, absent, or ? for undetermined), id and kind; a drift adds
// what was observed, a ? the reason; under the counts, the hint
// DetectSudoHintText gives.
func Detect(w io.Writer, o *observation.Observations) {
	if len(o.Unresolved) > 0 {
		Unverifiable(w, o.Unresolved)
		fmt.Fprintln(w)
	}
	if Warnings(w, o.Warnings) {
		fmt.Fprintln(w)
	}
	Header(w, o.Declaration.Target, o.Context, o.References)
	fmt.Fprintln(w)
	for i, r := range o.Resources {
		kind := o.Declaration.Resources[i].Type
		fmt.Fprintf(w, "%-*s  %s  %s", markWidth, Mark(r.Verdict), escape.Line(r.ID), escape.Line(string(kind)))
		if r.Verdict == observation.Undetermined {
			fmt.Fprintf(w, ": %s", escape.Indent(r.Reason, "        "))
		}
		fmt.Fprintln(w)
		for _, d := range r.Drift {
			Difference(w, d, "        ")
		}
	}
	Pending(w, o.Pending)
	counts := map[observation.Verdict]int{}
	for _, r := range o.Resources {
		counts[r.Verdict]++
	}
	fmt.Fprintf(w, "\n%d resource(s): %d ok, %d drift, %d absent, %d undetermined\n", len(o.Resources),
		counts[observation.Converged], counts[observation.Drifted], counts[observation.Absent], counts[observation.Undetermined])
	if h := DetectSudoHintText(o); h != "" {
		fmt.Fprintf(w, "hint: %s\n", h)
	}
}

// DetectSudoHintText is SudoHintText for a detection pass, its
// undetermined resources standing for the ones a plan would hold. zap
// detect --json carries it as held_hints.
func DetectSudoHintText(o *observation.Observations) string {
	var held []plan.Hold
	for i, r := range o.Resources {
		if r.Verdict == observation.Undetermined {
			held = append(held, plan.Hold{ID: r.ID, Type: o.Declaration.Resources[i].Type, Reason: r.Reason})
		}
	}
	return SudoHintText(held, o.Context)
}
