package pass

import (
	"errors"
	"fmt"

	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/state"
	"github.com/zap-go/zap/pkg/canon"
)

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
		return exit.BadInput(fmt.Errorf("%s: %w", what, err), untrusted)
	case pastLimit(err):
		return exit.BadInput(fmt.Errorf("%s: %w", what, err), limit)
	}
	return exit.Failf(1, "%s: %w", what, err)
}

// pastLimit reports whether err is a document past one of canon's limits
// (its size, depth or values): an input to fix, exit 2.
func pastLimit(err error) bool {
	var limit *canon.LimitError
	return errors.As(err, &limit)
}
