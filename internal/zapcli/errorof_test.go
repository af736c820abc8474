package zapcli

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"testing"

	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/stages"
)

// TestErrorOf checks the exit code, message and hints zap prints for each
// kind of failure (and --json's done carries): the front end's own, a
// stage's, one a report already told, and an error that carries no code.
func TestErrorOf(t *testing.T) {
	stageErr := &exit.Error{Code: 2, Err: &stages.Error{Stage: "zap-eval", Status: 2, Msg: "zap.ts:1:1: boom"}, Hints: []string{"fix zap.ts"}}
	for _, tc := range []struct {
		name  string
		err   error
		code  int
		msg   string
		hints []string
	}{
		{"none", nil, 0, "", nil},
		{"plain", fs.ErrNotExist, 1, "file does not exist", nil},
		{"input", exit.Fail(2, "config x not found", "give the path of a zap.ts"), 2, "config x not found", []string{"give the path of a zap.ts"}},
		{"world", exit.Failf(1, "state: %w", fs.ErrPermission), 1, "state: permission denied", nil},
		{"a stage's", stageErr, 2, "zap.ts:1:1: boom", []string{"fix zap.ts"}},
		{"a stage's, a hint added", exit.WithHints(stageErr, "zap init removed what it wrote"), 2, "zap.ts:1:1: boom", []string{"fix zap.ts", "zap init removed what it wrote"}},
		{"reported", exit.Reported(1), 1, "", nil},
		{"wrapped", fmt.Errorf("the run: %w", exit.BadInput(errors.New("refused"))), 2, "the run: refused", nil},
	} {
		code, msg, hints := errorOf(tc.err)
		if code != tc.code || msg != tc.msg || !slices.Equal(hints, tc.hints) {
			t.Errorf("%s: errorOf = %d %q %q, want %d %q %q", tc.name, code, msg, hints, tc.code, tc.msg, tc.hints)
		}
	}
	var se *stages.Error
	if !errors.As(exit.WithHints(stageErr, "h"), &se) || se.Stage != "zap-eval" {
		t.Error("errors.As doesn't find the stage's Error under the hints added")
	}
}
