package zapcli

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/zap-go/zap/internal/render"
	"github.com/zap-go/zap/pkg/events"
)

// TestDeployTextShowsAFailedStepsOutput: a deploy's text report shows a
// failed step's output under its error as "| line" lines, as zap apply
// does, only the last render.OutputTail of a long one, and control
// characters escaped; a step that failed with no output shows none. The
// error is said without the step's summary the engine puts ahead of it,
// with its triage code after it as apply says a failed change's.
func TestDeployTextShowsAFailedStepsOutput(t *testing.T) {
	var b strings.Builder
	text := &deployText{w: &b}
	st := 1
	text.event(&events.Event{Event: events.StepStarted, ID: "restart", Step: 4, Summary: "restart: systemctl restart 'myapp'"})
	text.event(&events.Event{Event: events.StepFailed, ID: "restart", Step: 4, Error: "restart: systemctl restart 'myapp' failed: the deploy-restart script exited 1", Code: events.ExecutionFailed, Exit: &st,
		Output: "System has not been booted with systemd as init system (PID 1). Can't operate.\nFailed to connect to bus\x1b[31m\n"})
	want := "4. restart: systemctl restart 'myapp'\n" +
		"   failed: the deploy-restart script exited 1 (execution_failed)\n" +
		"   its output:\n" +
		"   | System has not been booted with systemd as init system (PID 1). Can't operate.\n" +
		"   | Failed to connect to bus<U+001B>[31m\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}

	b.Reset()
	var long []string
	for i := 0; i < render.OutputTail+5; i++ {
		long = append(long, "line "+strings.Repeat("x", i))
	}
	text.event(&events.Event{Event: events.StepStarted, ID: "build", Step: 1, Summary: "build: make"})
	b.Reset()
	text.event(&events.Event{Event: events.StepFailed, ID: "build", Step: 1, Error: "build: make exited 2", Output: strings.Join(long, "\n")})
	got := b.String()
	if !strings.HasPrefix(got, "   failed: exited 2\n") || !strings.Contains(got, "the last 20 of its 25 output lines:\n") || strings.Count(got, "   | ") != render.OutputTail ||
		strings.Contains(got, "| line xxxx\n") || !strings.HasSuffix(got, "| "+long[len(long)-1]+"\n") {
		t.Errorf("a long output:\n%s", got)
	}

	// The triage code is said as zap apply says a failed change's.
	b.Reset()
	var apply strings.Builder
	for _, code := range []events.Code{events.Transient, events.Permission, events.NotFound, events.Conflict, events.Permanent} {
		b.Reset()
		apply.Reset()
		text.event(&events.Event{Event: events.StepFailed, ID: "build", Step: 1, Error: "build: make failed: no", Code: code})
		render.NewProgress(&apply).Event(&events.Event{Event: events.ChangeFailed, ID: "x", Type: "file", Error: "no", Code: code})
		if want := "   failed: no (" + string(code) + ")\n"; b.String() != want {
			t.Errorf("code %s: got %q, want %q", code, b.String(), want)
		}
		if !strings.HasSuffix(apply.String(), ": no ("+string(code)+")\n") {
			t.Errorf("code %s: apply says %q", code, apply.String())
		}
	}

	b.Reset()
	text.event(&events.Event{Event: events.StepFailed, ID: "health", Step: 5, Error: "https://app.example/health answered 404 after 2 attempt(s)"})
	if strings.Contains(b.String(), "|") || strings.Contains(b.String(), "output") {
		t.Errorf("a failure with no output shows some:\n%s", b.String())
	}
}

// TestDeployStatusInAPipe: with no terminal, a deploy's status is zap
// apply's plain lines on stderr: one started line for the deploy, named by
// its version, and nothing for its steps while none runs past 10 seconds
// (the clock here stands still); the text report is written as without a
// status.
func TestDeployStatusInAPipe(t *testing.T) {
	var report, stderr, apply strings.Builder
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	now := func() time.Time { return at }
	text := &deployText{w: &report}
	s := &deployStatus{p: render.NewProgress(io.Discard), id: "3f2a1c9e0b7d", plain: true}
	s.p.Plain(&stderr, now)
	for _, e := range []events.Event{
		{Event: events.RunStarted, Format: events.Format},
		{Event: events.StepStarted, ID: "build", Step: 1, Summary: "build: make"},
		{Event: events.StepOK, ID: "build", Step: 1},
		{Event: events.StepStarted, ID: "health", Step: 2, Summary: "health: https://app.example/health"},
		{Event: events.StepOK, ID: "health", Step: 2},
		{Event: events.RunOK, OK: 1},
	} {
		s.around(&e, func() { text.event(&e) })
	}
	s.p.Close()
	a := render.NewProgress(io.Discard)
	a.Plain(&apply, now)
	a.Event(&events.Event{Event: events.ChangeStarted, ID: "3f2a1c9e0b7d", Type: "deploy"})
	a.Close()
	if want := "  started  3f2a1c9e0b7d  deploy\n"; stderr.String() != want || apply.String() != want {
		t.Errorf("stderr %q, apply's line %q, want %q", stderr.String(), apply.String(), want)
	}
	if want := "1. build: make\n2. health: https://app.example/health\ndeployed\n"; report.String() != want {
		t.Errorf("the report:\n%s\nwant\n%s", report.String(), want)
	}
}
