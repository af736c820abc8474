package evaluate

import (
	"fmt"
	"slices"
	"strings"
)

// Error is a config that failed to evaluate: the config's problem, not the
// evaluator's.
type Error struct {
	// Pos is where in the config it happened (zap.ts:4:3), when known.
	Pos string
	// Msg says what happened, in one line.
	Msg string
	// Detail is more lines to show under Msg (a stack trace), or "".
	Detail string
	// Hint says what to do about it, or "".
	Hint string
}

func (e *Error) Error() string {
	s := e.Msg
	if e.Pos != "" {
		s = e.Pos + ": " + s
	}
	if e.Detail != "" {
		s += "\n" + strings.TrimRight(e.Detail, "\n")
	}
	return s
}

// MaxErrors is how many of a config's problems an evaluation reports; past
// it the rest are counted ("… and 3 more").
const MaxErrors = 20

// Errors is a config's problems, more than one: the first MaxErrors in the
// order the config made them, and how many more there were.
type Errors struct {
	List []*Error
	More int
}

func (e *Errors) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d problems in the config:", len(e.List)+e.More)
	for _, x := range e.List {
		b.WriteString("\n")
		b.WriteString(x.Error())
	}
	if e.More > 0 {
		fmt.Fprintf(&b, "\n… and %d more", e.More)
	}
	return b.String()
}

// Unwrap returns the problems, so errors.As finds the first *Error.
func (e *Errors) Unwrap() []error {
	out := make([]error, len(e.List))
	for i, x := range e.List {
		out[i] = x
	}
	return out
}

// Hints returns the problems' hints, each once, in order.
func (e *Errors) Hints() []string {
	var out []string
	for _, x := range e.List {
		if x.Hint != "" && !slices.Contains(out, x.Hint) {
			out = append(out, x.Hint)
		}
	}
	return out
}

// join is list and the count of those past it as one error: the one
// problem itself, or an *Errors; nil for none.
func join(list []*Error, more int) error {
	switch {
	case len(list) == 0:
		return nil
	case len(list) == 1 && more == 0:
		return list[0]
	}
	return &Errors{List: list, More: more}
}
