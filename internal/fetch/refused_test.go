package fetch

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

// TestRefused: what the rules refuse is an input to fix, wrapped or not;
// what the world did (a timeout, a status, a missing file) is not.
func TestRefused(t *testing.T) {
	for _, err := range []error{ErrRefused, ErrMismatch, ErrMinisign, ErrTooLarge, fmt.Errorf("fetch x: %w", &MismatchError{})} {
		if !Refused(fmt.Errorf("wrapped: %w", err)) {
			t.Errorf("Refused(%v) = false", err)
		}
	}
	for _, err := range []error{ErrTimeout, ErrStatus, fs.ErrNotExist, errors.New("refused: said in text only")} {
		if Refused(err) {
			t.Errorf("Refused(%v) = true", err)
		}
	}
}
