package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/zap-go/zap/internal/scripttest"
	"github.com/zap-go/zap/pkg/events"
)

func TestMain(m *testing.M) { scripttest.Main(m) }

// TestScripts runs testdata/script. Besides scripttest's commands a script
// has:
//
//	events
//	    decodes every line of the last command's stdout with events.Read
//	    (failing the script when one doesn't decode, doesn't end in a
//	    newline, or the stream doesn't open with run_started carrying a
//	    plan_hash), and writes one line per event to stdout: its tag, then
//	    id, #step, [code], exit=N and the counts of run_ok and run_failed,
//	    where the event has them, for a cmp against a golden file.
func TestScripts(t *testing.T) {
	p := scripttest.Params("testdata/script")
	p.Cmds["events"] = cmdEvents
	testscript.Run(t, p)
}

var planHash = regexp.MustCompile(`^[0-9a-f]{64}$`)

func cmdEvents(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: events")
	}
	out := ts.ReadFile("stdout")
	if out == "" || !strings.HasSuffix(out, "\n") {
		ts.Fatalf("events: stdout is empty or doesn't end in a newline: %q", out)
	}
	var b strings.Builder
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		e, err := events.Read([]byte(line))
		if err != nil {
			ts.Fatalf("events: line %d doesn't decode: %v\n%s", i+1, err, line)
		}
		if i == 0 && (e.Event != events.RunStarted || !planHash.MatchString(e.PlanHash)) {
			ts.Fatalf("events: the stream opens with %s", line)
		}
		b.WriteString(string(e.Event))
		if e.ID != "" {
			fmt.Fprintf(&b, " %s", e.ID)
		}
		if e.Step != 0 {
			fmt.Fprintf(&b, " #%d", e.Step)
		}
		if e.Code != "" {
			fmt.Fprintf(&b, " [%s]", e.Code)
		}
		if e.Exit != nil {
			fmt.Fprintf(&b, " exit=%d", *e.Exit)
		}
		switch e.Event {
		case events.RunStarted:
			fmt.Fprintf(&b, " changes=%d", e.Changes)
		case events.RunOK, events.RunFailed:
			fmt.Fprintf(&b, " ok=%d failed=%d skipped=%d", e.OK, e.Failed, e.Skipped)
		}
		b.WriteString("\n")
	}
	ts.Stdout().Write([]byte(b.String()))
}
