// Package exit is the one error type that carries a Zap binary's exit code,
// and the one way every binary prints a failure.
//
// An Error wraps what failed (Err) with the exit code the conventions give
// it: 2 for an input to fix (BadInput), 1 for a problem in the world
// (InWorld), and with hint lines where a fix is known. It unwraps, so
// errors.Is and errors.As see the failure it carries: a sentinel, a
// *fs.PathError, a stage's failure (stages.Error). An error that carries
// no Error exits 1. A Reported error has already been told (a report or
// the events said why) and only sets the code.
//
// Write prints a failure in the one voice every binary speaks on stderr:
// "WHO: MESSAGE", the further lines of the message indented under the
// first, then each hint as "hint: HINT", every line escaped
// (internal/escape). A stage is WHO to itself
// ("zap-plan: ..."); zap, which prints a stage's failure as its own, says
// "error: ..." (docs/cli.md).
package exit

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/zap-go/zap/internal/escape"
)

// Error is a failure with the exit code it carries and, when a fix is known,
// hint lines.
type Error struct {
	// Code is the binary's exit code: 2 an input to fix, 1 a problem in the
	// world.
	Code int
	// Err is what failed; its text is the message.
	Err   error
	Hints []string
	// Reported is a failure already told (a report, the events): nothing
	// is printed for it.
	Reported bool
}

func (e *Error) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// BadInput marks err as a problem in the binary's input: exit 2.
func BadInput(err error, hints ...string) error { return &Error{Code: 2, Err: err, Hints: hints} }

// InWorld marks err as a problem in the world: exit 1.
func InWorld(err error, hints ...string) error { return &Error{Code: 1, Err: err, Hints: hints} }

// Fail is a failure exiting code with the message msg and hints.
func Fail(code int, msg string, hints ...string) error {
	return &Error{Code: code, Err: errors.New(msg), Hints: hints}
}

// Failf is Fail with a message formatted by fmt.Errorf, so an error it
// formats with %w stays in the chain, and no hint.
func Failf(code int, format string, args ...any) error {
	return &Error{Code: code, Err: fmt.Errorf(format, args...)}
}

// errReported is what a Reported error says, should anything print it.
var errReported = errors.New("reported")

// Reported is the exit code of a failure already told (a report said why):
// nil for 0.
func Reported(code int) error {
	if code == 0 {
		return nil
	}
	return &Error{Code: code, Err: errReported, Reported: true}
}

// WithHints is err with hints added after those it has: a failure that
// keeps err's exit code (1 for an error that carries none) and its text.
func WithHints(err error, hints ...string) error {
	if err == nil || len(hints) == 0 {
		return err
	}
	return &Error{Code: Code(err), Err: err, Hints: hints}
}

// Code is the exit code err carries: 0 for nil, that of the outermost Error
// in its chain, 1 for an error that carries none.
func Code(err error) int {
	if err == nil {
		return 0
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 1
}

// IsReported reports whether err was already told, so that nothing is
// printed for it.
func IsReported(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Reported
}

// Hints is the hint lines of every Error in err's chain, the ones of a
// failure before those a wrapper added.
func Hints(err error) []string {
	var out []string
	switch x := err.(type) {
	case nil:
		return nil
	case interface{ Unwrap() error }:
		out = Hints(x.Unwrap())
	case interface{ Unwrap() []error }:
		for _, inner := range x.Unwrap() {
			out = append(out, Hints(inner)...)
		}
	}
	if e, ok := err.(*Error); ok {
		out = append(out, e.Hints...)
	}
	return out
}

// Write prints msg and hints in the voice of every Zap binary: "who: msg",
// each further line of msg indented (Indent) under the first, then "hint: "
// and each hint, its further lines indented too; every line escaped
// (escape.Block), so that nothing in it moves the cursor or hides text.
func Write(w io.Writer, who, msg string, hints ...string) {
	var b strings.Builder
	b.WriteString(who + ": " + escape.Indent(msg, Indent) + "\n")
	for _, h := range hints {
		b.WriteString("hint: " + escape.Indent(h, Indent) + "\n")
	}
	_, _ = io.WriteString(w, b.String())
}

// Indent is what Write puts before each further line of a message or a
// hint.
const Indent = "  "

// Print writes err as who's failure (Write: its text, its Hints) unless it
// was Reported, and returns its exit code (Code).
func Print(w io.Writer, who string, err error) int {
	if err == nil {
		return 0
	}
	if !IsReported(err) {
		Write(w, who, err.Error(), Hints(err)...)
	}
	return Code(err)
}
