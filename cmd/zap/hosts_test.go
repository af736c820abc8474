package main

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/zap-go/zap/internal/review"
	"github.com/zap-go/zap/pkg/canon"
	"github.com/zap-go/zap/pkg/cliout"
	"github.com/zap-go/zap/pkg/events"
)

// combinedOnScreen is the combined plan_hash as a terminal shows it (its
// lines end \r\n), for ttyrun -answer combined8.
var combinedOnScreen = regexp.MustCompile(`combined plan_hash: ([0-9a-f]{64})`)

var combinedPattern = regexp.MustCompile(`(?m)^combined plan_hash: ([0-9a-f]{64})$`)

// cmdCombinedhash is combinedhash [-eq|-ne OTHER] VAR: the one combined
// plan_hash line of stdout, kept in $VAR, or held equal to $VAR (-eq) or
// kept in $VAR and held unequal to $OTHER (-ne OTHER).
func cmdCombinedhash(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("combinedhash takes no !")
	}
	m := combinedPattern.FindAllStringSubmatch(ts.ReadFile("stdout"), -1)
	if len(m) != 1 {
		ts.Fatalf("combinedhash: want one combined plan_hash line in stdout, found %d", len(m))
	}
	got := m[0][1]
	switch {
	case len(args) == 1:
		ts.Setenv(args[0], got)
	case len(args) == 2 && args[0] == "-eq":
		if want := ts.Getenv(args[1]); got != want {
			ts.Fatalf("combined plan_hash %s, want $%s = %s", got, args[1], want)
		}
	case len(args) == 3 && args[0] == "-ne":
		if other := ts.Getenv(args[1]); got == other {
			ts.Fatalf("combined plan_hash %s is $%s's", got, args[1])
		}
		ts.Setenv(args[2], got)
	default:
		ts.Fatalf("usage: combinedhash [-eq VAR | -ne OTHER VAR | VAR]")
	}
}

// cmdHostsjson is hostsjson [-exit N] [-hosts N] [-combined VAR]: stdout
// is a zap.hosts/1 stream, every line canonical and read strictly, each
// host's line read strictly as what it is (a zap.cli-* document or a
// zap.events/1 event), each wait before what it waits for (a slot before
// the host's first line, the other hosts before its run starts), the
// summary last with exit N and N hosts, each host's plan_hash in the
// summary the one its document has (a wetrun refused before its first
// event has none), and the combined plan_hash over them (held equal to
// $VAR with -combined).
func cmdHostsjson(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("hostsjson takes no !")
	}
	wantExit, wantHosts, combinedVar := 0, -1, ""
	for len(args) > 1 {
		switch args[0] {
		case "-exit", "-hosts":
			n, err := strconv.Atoi(args[1])
			ts.Check(err)
			if args[0] == "-exit" {
				wantExit = n
			} else {
				wantHosts = n
			}
		case "-combined":
			combinedVar = args[1]
		default:
			ts.Fatalf("hostsjson: unknown argument %s", args[0])
		}
		args = args[2:]
	}
	if len(args) != 0 {
		ts.Fatalf("usage: hostsjson [-exit N] [-hosts N] [-combined VAR]")
	}
	out, ok := strings.CutSuffix(ts.ReadFile("stdout"), "\n")
	if !ok {
		ts.Fatalf("hostsjson: stdout doesn't end with a newline")
	}
	lines := strings.Split(out, "\n")
	planHash := map[string]string{}
	seen, started := map[string]int{}, map[string]bool{}
	var summary *cliout.HostsSummary
	for i, line := range lines {
		if c, err := canon.Transform([]byte(line)); err != nil || string(c) != line {
			ts.Fatalf("hostsjson: line %d not in canonical form (%v):\n%s", i+1, err, line)
		}
		l, err := cliout.ReadHostLine([]byte(line))
		if err != nil {
			ts.Fatalf("hostsjson: line %d: %v", i+1, err)
		}
		if l.Summary != nil {
			if i != len(lines)-1 {
				ts.Fatalf("hostsjson: the summary is line %d of %d, not the last", i+1, len(lines))
			}
			summary = l.Summary
			continue
		}
		if l.Wait != "" {
			// A host waits for a slot before its first line, and for
			// the other hosts before its run starts.
			if seen[l.Host] > 0 && l.Wait == cliout.WaitSlot || started[l.Host] {
				ts.Fatalf("hostsjson: line %d: %s waits for %s after its run went on", i+1, l.Host, l.Wait)
			}
			continue
		}
		seen[l.Host]++
		hostLine(ts, l, planHash)
		started[l.Host] = started[l.Host] || planHash[l.Host] != ""
	}
	if summary == nil {
		ts.Fatalf("hostsjson: no summary line")
	}
	if summary.Exit != wantExit {
		ts.Fatalf("hostsjson: summary exit %d, want %d", summary.Exit, wantExit)
	}
	if wantHosts >= 0 && len(summary.Hosts) != wantHosts {
		ts.Fatalf("hostsjson: %d hosts in the summary, want %d", len(summary.Hosts), wantHosts)
	}
	hashes := make([]string, len(summary.Hosts))
	for i, h := range summary.Hosts {
		// A host refused before its first event wrote nothing: its
		// plan_hash is the summary's alone.
		refused := h.Exit == 2 && strings.HasPrefix(h.Error, "refused: ") && seen[h.Host] == 0
		if h.PlanHash != planHash[h.Host] && !refused {
			ts.Fatalf("hostsjson: %s's plan_hash is %q in the summary, %q in its document", h.Host, h.PlanHash, planHash[h.Host])
		}
		hashes[i] = h.PlanHash
	}
	if want := review.Combined(hashes); summary.CombinedPlanHash != want {
		ts.Fatalf("hostsjson: combined_plan_hash %q, want %q", summary.CombinedPlanHash, want)
	}
	if combinedVar != "" && summary.CombinedPlanHash != ts.Getenv(combinedVar) {
		ts.Fatalf("hostsjson: combined_plan_hash %s, want $%s = %s", summary.CombinedPlanHash, combinedVar, ts.Getenv(combinedVar))
	}
}

// hostLine reads a host's own line strictly as the format it names, and
// keeps a plan document's plan_hash by host.
func hostLine(ts *testscript.TestScript, l *cliout.HostLine, planHash map[string]string) {
	switch {
	case strings.Contains(string(l.Line), `"format":"`+cliout.PlanFormat+`"`):
		d, _, err := cliout.ReadPlan(l.Line)
		if err != nil {
			ts.Fatalf("hostsjson: %s's plan document: %v", l.Host, err)
		}
		planHash[l.Host] = d.PlanHash
	case strings.Contains(string(l.Line), `"format":"`+cliout.StatusFormat+`"`):
		if _, err := cliout.ReadStatus(l.Line); err != nil {
			ts.Fatalf("hostsjson: %s's status document: %v", l.Host, err)
		}
	default:
		e, err := events.Read(l.Line)
		if err != nil {
			ts.Fatalf("hostsjson: %s's line is no document and no event: %v", l.Host, err)
		}
		if e.Event == events.RunStarted {
			planHash[l.Host] = e.PlanHash
		}
	}
}
