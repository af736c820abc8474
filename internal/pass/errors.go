package pass

import (
	"errors"
	"fmt"

	"github.com/zap-go/zap/internal/state"
	"github.com/zap-go/zap/pkg/canon"
)

// Error is a failure with zap's exit code. A quiet one has already said
// what it had to (a report was printed) and only sets the code.
type Error struct {
	Code  int
	Msg   string
	Hints []string
	Quiet bool
}

func (e *Error) Error() string { return e.Msg }

// Fail is an error exiting code, printed as error: msg with hints.
func Fail(code int, msg string, hints ...string) error {
	return &Error{Code: code, Msg: msg, Hints: hints}
}

// Failf is Fail with a formatted message and no hint.
func Failf(code int, format string, args ...any) error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// StateError gives a state failure its exit code: a directory or file that
// isn't the user's own is an input to fix (2); anything else is the world (1).
func StateError(err error) error {
	return fileError("state", err,
		"every file under ~/.zap (or $ZAP_HOME) must belong to the user Zap runs as, and no other account may write it; fix or remove it",
		"zap writes no file under ~/.zap (or $ZAP_HOME) past the limits of a document; remove it")
}

// fileError gives a failure of one of zap's own files (what: state, eval
// cache) its exit code: one that isn't the user's own (hinting untrusted)
// or a document past one of canon's limits (hinting limit) is an input to
// fix (2); anything else is the world (1).
func fileError(what string, err error, untrusted, limit string) error {
	switch {
	case errors.Is(err, state.ErrUntrusted):
		return Fail(2, fmt.Sprintf("%s: %v", what, err), untrusted)
	case pastLimit(err):
		return Fail(2, fmt.Sprintf("%s: %v", what, err), limit)
	}
	return Failf(1, "%s: %v", what, err)
}

// pastLimit reports whether err is a document past one of canon's limits
// (its size, depth or values): an input to fix, exit 2.
func pastLimit(err error) bool {
	var limit *canon.LimitError
	return errors.As(err, &limit)
}
