package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"

	"github.com/zap-go/zap/internal/scripttest"
)

// event is one line of go test -json (cmd/test2json).
type event struct {
	Action     string
	Package    string
	ImportPath string // build-output
	Test       string
	Output     string
}

// skip is a test that skipped and the reason it logged.
type skip struct {
	pkg, test, why string
}

// report keeps each running test's output until it ends: printed when it
// fails, read for a reason when it skips, dropped when it passes.
type report struct {
	w       io.Writer
	running map[string][]string // package + "\x00" + test -> output lines
	order   []string            // running's keys, in the order they started
	skips   []skip
	failed  bool
	// passes and fails count the tests (subtests too) that ended so.
	passes, fails int
}

func newReport(w io.Writer) *report {
	return &report{w: w, running: map[string][]string{}}
}

// read reads the stream to its end.
func (r *report) read(in io.Reader) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<26)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			// Not an event (go's own message before a test binary ran):
			// shown as it is.
			fmt.Fprintf(r.w, "%s\n", line)
			continue
		}
		r.event(e)
	}
	return sc.Err()
}

func (r *report) event(e event) {
	key := e.Package + "\x00" + e.Test
	switch {
	case e.Action == "build-output":
		fmt.Fprint(r.w, e.Output)
	case e.Action == "build-fail":
		r.failed = true
	case e.Test == "":
		// The package's own lines: ok, FAIL, ?, a panic outside any test.
		if e.Action == "fail" {
			r.failed = true
		}
		if e.Action == "output" && e.Output != "PASS\n" {
			fmt.Fprint(r.w, e.Output)
		}
	case e.Action == "output":
		if _, ok := r.running[key]; !ok {
			r.order = append(r.order, key)
		}
		r.running[key] = append(r.running[key], e.Output)
	case e.Action == "fail":
		r.failed = true
		r.fails++
		r.print(r.running[key])
		delete(r.running, key)
	case e.Action == "skip":
		r.skips = append(r.skips, skip{e.Package, e.Test, skipReason(r.running[key])})
		delete(r.running, key)
	case e.Action == "pass":
		r.passes++
		delete(r.running, key)
	}
}

// print writes a test's output as go test does for a failure, without
// the -v framing lines (=== RUN, PAUSE, CONT).
func (r *report) print(lines []string) {
	for _, l := range lines {
		if !strings.HasPrefix(l, "=== ") {
			fmt.Fprint(r.w, l)
		}
	}
}

// logLine is the first line of a t.Log, t.Skip or t.Error message.
var logLine = regexp.MustCompile(`^    [^ ]+\.go:\d+: (.*)$`)

// skipReason is what a skipped test's output says: the last message it
// logged, which is the skip's own, except in a testscript script, whose
// skip message comes before the script's log (that log opening WORK=).
func skipReason(lines []string) string {
	why := ""
	for _, l := range lines {
		m := logLine.FindStringSubmatch(strings.TrimRight(l, "\n"))
		if m != nil && !strings.HasPrefix(m[1], "WORK=") {
			why = m[1]
		}
	}
	if why == "" {
		return "(no reason given)"
	}
	return why
}

// finish prints the output of any test that never ended (its binary died),
// the skips, and the verdict; it reports whether the run passed. status is
// go test's exit status as make recorded it ("" for none recorded); strict
// fails the run on a skip not in scripttest.AcceptedSkips.
func (r *report) finish(strict bool, status string) bool {
	ok := !r.failed
	for _, key := range r.order {
		if lines, still := r.running[key]; still && len(lines) > 0 {
			pkg, test, _ := strings.Cut(key, "\x00")
			fmt.Fprintf(r.w, "--- NOT ENDED: %s %s (its test binary ended first)\n", pkg, test)
			r.print(lines)
			ok = false
		}
	}
	switch s := strings.TrimSpace(status); s {
	case "", "0":
	case "missing":
		fmt.Fprintln(r.w, "go test's exit status wasn't recorded (it didn't end)")
		ok = false
	default:
		fmt.Fprintf(r.w, "go test exited %s\n", s)
		ok = false
	}
	sort.Slice(r.skips, func(i, j int) bool {
		if r.skips[i].pkg != r.skips[j].pkg {
			return r.skips[i].pkg < r.skips[j].pkg
		}
		return r.skips[i].test < r.skips[j].test
	})
	fmt.Fprintf(r.w, "skipped: %d test(s)\n", len(r.skips))
	unexpected := 0
	for _, s := range r.skips {
		mark := ""
		if !scripttest.SkipAccepted(s.pkg, s.test) {
			unexpected++
			if strict {
				mark = " [NOT ACCEPTED]"
			}
		}
		fmt.Fprintf(r.w, "skip: %s %s: %s%s\n", strings.TrimPrefix(s.pkg, "github.com/zap-go/zap/"), s.test, s.why, mark)
	}
	if strict && unexpected > 0 {
		fmt.Fprintf(r.w, "FAIL: %d skip(s) as root in CI that docs/testing.md doesn't accept (internal/scripttest/skips.go)\n", unexpected)
		ok = false
	}
	// The count in the plain form any reader of a run's end knows.
	fmt.Fprintf(r.w, "tests: %d passed, %d failed, %d skipped\n", r.passes, r.fails, len(r.skips))
	if ok {
		fmt.Fprintln(r.w, "make test: PASS")
	} else {
		fmt.Fprintln(r.w, "make test: FAIL")
	}
	return ok
}
