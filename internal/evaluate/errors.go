package evaluate

import "strings"

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
