package localops

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/plan"
)

// TestOp checks that an operation's script reads its arguments (the path
// after --, the others on stdin) and runs in a session of its own, that a failure is an ExitError keeping
// its output, and that one past its limit times out.
func TestOp(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	h := host()
	script := `printf '%s|' "$@" > ` + vocab.Quote(out) + "\n" +
		`read -r _ _ _ _ pgrp session _ < /proc/self/stat; [ "$pgrp" = "$session" ] || exit 9` + "\n"
	err := h.Op(context.Background(), &execute.ZapOp{Name: "t", Script: script, Args: []string{"a b", "it's"}, Privilege: plan.Login})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b) != "a b|it's|" {
		t.Errorf("arguments: %q", b)
	}
	// Only the path is on the shell's argv; the other arguments, a line
	// break and a quote among them, come ahead of the script on stdin.
	argv := filepath.Join(dir, "argv")
	script = `printf '%s|' "$@" > ` + vocab.Quote(out) + "\n" +
		`tr '\000' '|' < /proc/$$/cmdline > ` + vocab.Quote(argv) + "\n"
	err = h.Op(context.Background(), &execute.ZapOp{Name: "t", Script: script, Args: []string{"/p", "x\ny", "it's", ""}, HasPath: true, Privilege: plan.Login})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b) != "/p|x\ny|it's||" {
		t.Errorf("arguments: %q", b)
	}
	if b, _ := os.ReadFile(argv); string(b) != "/bin/sh|-s|--|/p|" {
		t.Errorf("the shell's argv: %q, want only the path after --", b)
	}
	err = h.Op(context.Background(), &execute.ZapOp{Name: "t", Script: "echo broken >&2; exit 3\n", Privilege: plan.Login})
	var ee *execute.ExitError
	if !errors.As(err, &ee) || ee.Status != 3 || !strings.Contains(ee.Output, "broken") {
		t.Errorf("a failing script: %v", err)
	}
	err = h.Op(context.Background(), &execute.ZapOp{Name: "t", Script: "sleep 10\n", Privilege: plan.Login, Timeout: 200 * time.Millisecond})
	var te *execute.TimeoutError
	if !errors.As(err, &te) {
		t.Errorf("past its limit: %v", err)
	}
	if os.Geteuid() != 0 {
		t.Skip("a root operation as root is checked only when the test runs as root")
	}
	err = h.Op(context.Background(), &execute.ZapOp{Name: "t", Script: `[ "$(id -u)" = 0 ]` + "\n", Privilege: plan.Root})
	if err != nil {
		t.Errorf("a root operation as root: %v", err)
	}
}
