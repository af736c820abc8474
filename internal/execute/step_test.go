package execute_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/localops"
	"github.com/zap-go/zap/internal/mask"
	"github.com/zap-go/zap/pkg/events"
	"github.com/zap-go/zap/pkg/plan"
)

// stepEvents reads the event lines Step wrote.
func stepEvents(t *testing.T, b *bytes.Buffer) []*events.Event {
	t.Helper()
	var out []*events.Event
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		e, err := events.Read([]byte(l))
		if err != nil {
			t.Fatalf("event %q: %v", l, err)
		}
		out = append(out, e)
	}
	b.Reset()
	return out
}

// TestStepRunsOneStepBetweenItsEvents: a step run alone on this machine's
// host is step_started and then step_ok, or step_failed with the error,
// exit and output a step of a plan gets (the summary ahead of the error,
// the output masked); a Local step's error is "SUMMARY failed: ERR", a
// *SkipError a step_skipped with its reason; WithCapture hands the step's
// stdout, masked, to whoever reads a script's answer.
func TestStepRunsOneStepBetweenItsEvents(t *testing.T) {
	var b bytes.Buffer
	m := mask.New(map[string]string{"TOKEN": "s3cr3t-value"})
	r := &execute.Runner{Host: localops.New(os.Environ()), Events: &b, Mask: m}
	ctx := context.Background()

	cmd := &execute.PreparedStep{Summary: "build: make", Command: &execute.Command{Script: execute.Script("", nil, "echo building s3cr3t-value; exit 2")}}
	err, werr := r.Step(ctx, "build", 1, cmd)
	var ee *execute.ExitError
	if werr != nil || !errors.As(err, &ee) || ee.Status != 2 {
		t.Fatalf("Step = %v, %v; want the command's exit 2", err, werr)
	}
	evs := stepEvents(t, &b)
	if len(evs) != 2 || evs[0].Event != events.StepStarted || evs[0].ID != "build" || evs[0].Step != 1 || evs[0].Summary != "build: make" {
		t.Fatalf("events %+v", evs)
	}
	f := evs[1]
	if f.Event != events.StepFailed || f.Error != "build: make exited 2" || f.Exit == nil || *f.Exit != 2 ||
		f.Code != events.ExecutionFailed || f.Output != "building [MASKED:TOKEN]\n" {
		t.Errorf("step_failed %+v", f)
	}

	op := &execute.PreparedStep{Summary: "read", Op: &execute.ZapOp{Name: "read", Script: `printf 'user %s\n' "$1"; echo s3cr3t-value >&2`, Args: []string{"alice"}, Privilege: plan.Login}}
	cctx, got := execute.WithCapture(execute.WithMask(ctx, m))
	if err, werr := r.Step(cctx, "read", 2, op); err != nil || werr != nil {
		t.Fatalf("Step = %v, %v", err, werr)
	}
	if evs := stepEvents(t, &b); len(evs) != 2 || evs[1].Event != events.StepOK || evs[1].Step != 2 {
		t.Errorf("events %+v", evs)
	}
	if got.Stdout.String() != "user alice\n" || got.Stderr.String() != "[MASKED:TOKEN]\n" {
		t.Errorf("captured %q and %q", got.Stdout.String(), got.Stderr.String())
	}

	local := &execute.PreparedStep{Summary: "health: https://app/health", Local: func(context.Context) error {
		return errors.New("https://app/health answered 503 after 1 attempt(s)")
	}}
	if err, _ := r.Step(ctx, "health", 3, local); err == nil {
		t.Fatal("a failing Local step succeeded")
	}
	if evs := stepEvents(t, &b); evs[1].Event != events.StepFailed || evs[1].Code != events.Permanent ||
		evs[1].Error != "health: https://app/health failed: https://app/health answered 503 after 1 attempt(s)" {
		t.Errorf("step_failed %+v", evs[1])
	}

	skip := &execute.PreparedStep{Summary: "readiness", Local: func(context.Context) error {
		return &execute.SkipError{Reason: "no /ready (404) for s3cr3t-value"}
	}}
	r.Step(ctx, "ready", 4, skip)
	if evs := stepEvents(t, &b); len(evs) != 2 || evs[1].Event != events.StepSkipped || evs[1].Reason != "no /ready (404) for [MASKED:TOKEN]" {
		t.Errorf("events %+v", evs)
	}
}
