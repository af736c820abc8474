package render

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zap-go/zap/pkg/events"
)

// clock is a test's time, moved by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// runSlow feeds p the change slow, a script, whose step n runs summary:
// the clock moved by each of ticks and the status ticked after each, then
// the step and the change end ok and p is closed.
func runSlow(p *Progress, c *clock, n int, summary string, ticks ...time.Duration) {
	p.Event(&events.Event{Event: events.ChangeStarted, ID: "slow", Type: "script"})
	p.Event(&events.Event{Event: events.StepStarted, ID: "slow", Step: n, Summary: summary})
	for _, d := range ticks {
		c.t = c.t.Add(d)
		p.mu.Lock()
		p.status.tick()
		p.mu.Unlock()
	}
	p.Event(&events.Event{Event: events.StepOK, ID: "slow", Step: n})
	p.Event(&events.Event{Event: events.ChangeOK, ID: "slow", Type: "script"})
	p.Close()
}

// A failed step is said once: the change's line carries what failed, the
// step's line its number and exit, then the last OutputTail lines of its
// output; the command is not written again.
func TestProgressFailureOnce(t *testing.T) {
	var b bytes.Buffer
	p := NewProgress(&b)
	exit := 2
	var out strings.Builder
	for i := 1; i <= 45; i++ {
		fmt.Fprintf(&out, "line %d\n", i)
	}
	msg := "make install exited 2"
	for _, e := range []events.Event{
		{Event: events.RunStarted, Format: events.Format, Changes: 1},
		{Event: events.ChangeStarted, ID: "build", Type: "script"},
		{Event: events.StepStarted, ID: "build", Step: 1, Summary: "make install"},
		{Event: events.StepFailed, ID: "build", Step: 1, Error: msg, Code: events.ExecutionFailed, Exit: &exit, Output: out.String()},
		{Event: events.StepSkipped, ID: "build", Step: 2, Reason: "an earlier step of the change failed"},
		{Event: events.ChangeFailed, ID: "build", Type: "script", Error: msg, Code: events.ExecutionFailed, Exit: &exit, Output: out.String()},
		{Event: events.RunFailed, Failed: 1},
	} {
		p.Event(&e)
	}
	got := b.String()
	if n := strings.Count(got, "make install"); n != 1 {
		t.Errorf("the command is written %d times, want once:\n%s", n, got)
	}
	want := "  failed   build  script: make install exited 2 (execution_failed)\n" +
		"      step 1 failed (exit 2); the last 20 of its 45 output lines:\n" +
		"        | line 26\n"
	if !strings.Contains(got, want) {
		t.Errorf("got:\n%s\nwant it to hold:\n%s", got, want)
	}
	if strings.Contains(got, "| line 25\n") || !strings.Contains(got, "        | line 45\n      step 2 skipped: ") {
		t.Errorf("the output's tail is not its last 20 lines:\n%s", got)
	}
}

// liveMasked is a Progress reporting to report with its status live on
// term, width columns wide, masking s3cret, ticked by hand on c.
func liveMasked(report, term *bytes.Buffer, width int, c *clock) *Progress {
	p := NewProgress(report)
	p.startStatus(&runStatus{w: term, live: true, width: width, mask: func(s string) string {
		return strings.ReplaceAll(s, "s3cret", "[MASKED:T]")
	}, now: c.now}, 0)
	return p
}

// On a terminal the change under way is one line, drawn when it starts,
// redrawn with its step and, past a second, the step's elapsed time, and
// erased before the change's line is written.
func TestProgressLive(t *testing.T) {
	var report, term bytes.Buffer
	c := &clock{t: time.Unix(1e9, 0)}
	p := liveMasked(&report, &term, 48, c)
	p.Event(&events.Event{Event: events.RunStarted, Format: events.Format, Changes: 1})
	// The tick under a second doesn't redraw.
	runSlow(p, c, 1, "echo s3cret; sleep 3", 500*time.Millisecond, 2*time.Second, 70*time.Second)
	// The summary is cut, not the elapsed time; a line unchanged isn't
	// drawn again.
	want := "\r  running  slow  script\x1b[K" +
		"\r  running  slow  script: step 1 echo [MASKED:T…\x1b[K" +
		"\r  running  slow  script: step 1 echo [MAS… · 2s\x1b[K" +
		"\r  running  slow  script: step 1 echo [… · 1m12s\x1b[K" +
		"\r\x1b[K"
	if term.String() != want {
		t.Errorf("terminal got %q\nwant %q", term.String(), want)
	}
	if report.String() != "Applying 1 change(s):\n  ok       slow  script\n" {
		t.Errorf("report got %q", report.String())
	}

	// Wide enough, the elapsed time shows.
	term.Reset()
	p = NewProgress(&report)
	p.startStatus(&runStatus{w: &term, live: true, width: 80, mask: func(s string) string { return s }, now: c.now}, 0)
	runSlow(p, c, 2, "sleep 90", 1500*time.Millisecond, 64*time.Second)
	for _, s := range []string{"\r  running  slow  script: step 2 sleep 90 · 1s\x1b[K", "\r  running  slow  script: step 2 sleep 90 · 1m05s\x1b[K"} {
		if !strings.Contains(term.String(), s) {
			t.Errorf("terminal %q doesn't hold %q", term.String(), s)
		}
	}
	if !strings.HasSuffix(term.String(), "\r\x1b[K") {
		t.Errorf("Close left the line drawn: %q", term.String())
	}
}

// With no terminal the change under way is said in plain lines, with no
// carriage return or escape: its start, and a step still running at 10
// seconds and every 30 after.
func TestProgressPlain(t *testing.T) {
	var report, plain bytes.Buffer
	c := &clock{t: time.Unix(1e9, 0)}
	p := NewProgress(&report)
	p.startStatus(&runStatus{w: &plain, mask: func(s string) string { return s }, now: c.now}, 0)
	ticks := make([]time.Duration, 50)
	for i := range ticks {
		ticks[i] = time.Second
	}
	runSlow(p, c, 1, "sleep 60", ticks...)
	want := "  started  slow  script\n" +
		"  ...      slow  script: step 1 still running after 10s\n" +
		"  ...      slow  script: step 1 still running after 40s\n"
	if plain.String() != want {
		t.Errorf("got %q\nwant %q", plain.String(), want)
	}
}

// On a terminal a running step's last output line (step_output) shows
// after its summary, masked and escaped; one of another step, or with no
// terminal, shows nothing.
func TestProgressLiveOutput(t *testing.T) {
	var report, term bytes.Buffer
	c := &clock{t: time.Unix(1e9, 0)}
	p := liveMasked(&report, &term, 100, c)
	p.Event(&events.Event{Event: events.ChangeStarted, ID: "slow", Type: "script"})
	p.Event(&events.Event{Event: events.StepStarted, ID: "slow", Step: 1, Summary: "./build.sh"})
	p.Event(&events.Event{Event: events.StepOutput, ID: "slow", Step: 1, Line: "working 1 s3cret\x1b[2J"})
	p.Event(&events.Event{Event: events.StepOutput, ID: "slow", Step: 2, Line: "not this one"})
	p.Event(&events.Event{Event: events.StepOK, ID: "slow", Step: 1})
	p.Event(&events.Event{Event: events.ChangeOK, ID: "slow", Type: "script"})
	p.Close()
	want := "\r  running  slow  script: step 1 ./build.sh › working 1 [MASKED:T]<U+001B>[2J\x1b[K"
	if !strings.Contains(term.String(), want) || strings.Contains(term.String(), "not this one") {
		t.Errorf("terminal got %q\nwant it to hold %q", term.String(), want)
	}
	if strings.Contains(report.String(), "working") {
		t.Errorf("the output line reached the report: %q", report.String())
	}

	var plain bytes.Buffer
	p = NewProgress(&report)
	p.startStatus(&runStatus{w: &plain, mask: func(s string) string { return s }, now: c.now}, 0)
	runSlowOutput := []events.Event{
		{Event: events.ChangeStarted, ID: "slow", Type: "script"},
		{Event: events.StepStarted, ID: "slow", Step: 1, Summary: "./build.sh"},
		{Event: events.StepOutput, ID: "slow", Step: 1, Line: "working 1"},
	}
	for i := range runSlowOutput {
		p.Event(&runSlowOutput[i])
	}
	p.Close()
	if strings.Contains(plain.String(), "working") {
		t.Errorf("plain lines show the output line: %q", plain.String())
	}
}

// A note (a step_skipped after its own step_started: it informs and has
// nothing to run) is not said as a skip in the report: the change's line
// after it says the change succeeded; a step not run after a failed one is.
func TestProgressNoteNotReportedAsSkipped(t *testing.T) {
	var b bytes.Buffer
	p := NewProgress(&b)
	exit := 1
	for _, e := range []events.Event{
		{Event: events.RunStarted, Format: events.Format, Changes: 2},
		{Event: events.ChangeStarted, ID: "tree", Type: "package"},
		{Event: events.StepStarted, ID: "tree", Step: 1, Summary: "note: installed by apt's install (tree)"},
		{Event: events.StepSkipped, ID: "tree", Step: 1, Reason: "a note: there is nothing to run"},
		{Event: events.ChangeOK, ID: "tree", Type: "package"},
		{Event: events.ChangeStarted, ID: "build", Type: "script"},
		{Event: events.StepStarted, ID: "build", Step: 1, Summary: "note: it runs make"},
		{Event: events.StepSkipped, ID: "build", Step: 1, Reason: "a note: there is nothing to run"},
		{Event: events.StepStarted, ID: "build", Step: 2, Summary: "make"},
		{Event: events.StepFailed, ID: "build", Step: 2, Error: "make exited 1", Code: events.ExecutionFailed, Exit: &exit},
		{Event: events.StepSkipped, ID: "build", Step: 3, Reason: "an earlier step of the change failed"},
		{Event: events.ChangeFailed, ID: "build", Type: "script", Error: "make exited 1", Code: events.ExecutionFailed, Exit: &exit},
		{Event: events.RunFailed, OK: 1, Failed: 1},
	} {
		p.Event(&e)
	}
	want := "Applying 2 change(s):\n" +
		"  ok       tree  package\n" +
		"  failed   build  script: make exited 1 (execution_failed)\n" +
		"      step 2 failed (exit 1)\n" +
		"      step 3 skipped: an earlier step of the change failed\n" +
		"Applied: 1 ok, 1 failed\n"
	if got := b.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
