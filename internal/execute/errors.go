package execute

import (
	"context"
	"errors"
	"fmt"
	"os/user"
	"syscall"
	"time"

	"github.com/zap-go/zap/pkg/events"
)

// ExitError is a command that ran and exited non-zero (128 plus the signal
// number when a signal ended it).
type ExitError struct {
	Status int
	// Output is the tail of what it printed: stdout, then stderr.
	Output string
}

func (e *ExitError) Error() string { return fmt.Sprintf("exited %d", e.Status) }

// TimeoutError is a command killed at its time limit.
type TimeoutError struct {
	After  time.Duration
	Output string
}

func (e *TimeoutError) Error() string { return fmt.Sprintf("timed out after %s", e.After) }

// CodedError is an error whose triage code is known where it happens: a
// directory or a link in the way is a conflict, whatever errno said.
type CodedError struct {
	Code events.Code
	Err  error
}

func (e *CodedError) Error() string { return e.Err.Error() }
func (e *CodedError) Unwrap() error { return e.Err }

// Errorf returns a CodedError with code and a formatted message (%w wraps).
func Errorf(code events.Code, format string, args ...any) error {
	return &CodedError{Code: code, Err: fmt.Errorf(format, args...)}
}

// Classify returns err's triage code, the exit status when a command exited,
// and what the command printed. The first of these found in err's chain
// decides: a CodedError, an ExitError (execution_failed), a TimeoutError or
// a deadline (transient), an unknown account (not_found), then the system's
// errno: EACCES and EPERM are permission; ENOSPC, EDQUOT and a link,
// directory or file in the way (EEXIST, ENOTEMPTY, EISDIR, ENOTDIR, ELOOP)
// conflict; ENOENT not_found; ETIMEDOUT and EAGAIN transient. Anything else
// is permanent.
func Classify(err error) (code events.Code, exit *int, output string) {
	var ce *CodedError
	var ee *ExitError
	var te *TimeoutError
	var uu user.UnknownUserError
	var ug user.UnknownGroupError
	var errno syscall.Errno
	switch {
	case err == nil:
		return "", nil, ""
	case errors.As(err, &ee):
		status := ee.Status
		return events.ExecutionFailed, &status, ee.Output
	case errors.As(err, &te):
		return events.Transient, nil, te.Output
	case errors.As(err, &ce):
		return ce.Code, nil, ""
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return events.Transient, nil, ""
	case errors.As(err, &uu), errors.As(err, &ug):
		return events.NotFound, nil, ""
	case errors.As(err, &errno):
		switch errno {
		case syscall.EACCES, syscall.EPERM:
			return events.Permission, nil, ""
		case syscall.ENOSPC, syscall.EDQUOT, syscall.EEXIST, syscall.ENOTEMPTY, syscall.EISDIR, syscall.ENOTDIR, syscall.ELOOP:
			return events.Conflict, nil, ""
		case syscall.ENOENT:
			return events.NotFound, nil, ""
		case syscall.ETIMEDOUT, syscall.EAGAIN, syscall.EINTR:
			return events.Transient, nil, ""
		}
	}
	return events.Permanent, nil, ""
}
