package zapcli

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/review"
	"github.com/zap-go/zap/pkg/cliout"
)

// TestSeveralHosts runs plan, a wetrun and status over three hosts in one
// process, two at a time (under -race, what they share is checked too):
// each host's own pass, grouped in order, the summary's rows and the
// combined plan_hash, and every host's wetrun executed.
func TestSeveralHosts(t *testing.T) {
	f := newFake(t)
	hash := f.setPass(observe(t, absent, absent), "")
	f.stage("zap-exec", 0, "", okRun(hash))
	hosts := []string{"h1", "h2", "h3"}
	for _, h := range hosts {
		if err := os.Mkdir(h, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"zap.ts", "zap.lock"} {
			b, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(h, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}

	code, out, errs := f.run(append([]string{"plan", "-j", "2"}, hosts...)...)
	want(t, "plan over three hosts", code, 0, out, errs)
	last := -1
	for _, h := range hosts {
		i := strings.Index(out, "=== "+h+"\n")
		if i < last {
			t.Fatalf("%s's group is missing or out of order:\n%s", h, out)
		}
		last = i
		if !regexp.MustCompile(`(?m)^` + h + ` +2 +0 +0 +` + hash + `$`).MatchString(out) {
			t.Errorf("no summary row for %s:\n%s", h, out)
		}
	}
	if combined := review.Combined([]string{hash, hash, hash}); !strings.Contains(out, "\ncombined plan_hash: "+combined+"\n") {
		t.Errorf("no combined plan_hash %s:\n%s", combined, out)
	}
	if strings.Count(out, "\nplan_hash: "+hash+"\n") != 3 {
		t.Errorf("want each host's own plan_hash line:\n%s", out)
	}

	// Each host bound to its own preview; the reading again still reads
	// absent (the fake doesn't change), so each is RESIDUAL: exit 1.
	code, out, errs = f.run(append([]string{"apply", "--wetrun", "-j", "2"}, hosts...)...)
	want(t, "wetrun over three hosts", code, 1, out, errs)
	if n := strings.Count(out, "Applied: 2 ok"); n != 3 {
		t.Fatalf("%d hosts applied, want 3:\n%s\n%s", n, out, errs)
	}
	if !strings.Contains(errs, "3 of 3 host(s) exited non-zero (exit 1, the worst):") {
		t.Errorf("closing lines:\n%s", errs)
	}

	code, out, errs = f.run(append([]string{"status"}, hosts...)...)
	want(t, "status over three hosts", code, 0, out, errs)
	if strings.Count(out, "\nlast run: ") != 3 {
		t.Errorf("status:\n%s", out)
	}

	// --json, two at a time: the hosts' lines written as they come, from
	// their goroutines, each whole; h3 waits for a slot first.
	code, out, errs = f.run(append([]string{"plan", "--json", "-j", "2"}, hosts...)...)
	want(t, "plan --json over three hosts", code, 0, out, errs)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 5 || lines[0] != `{"format":"zap.hosts/1","host":"h3","wait":"slot"}` {
		t.Fatalf("want h3's wait, a plan document per host and the summary:\n%s", out)
	}
	for _, line := range lines {
		if _, err := cliout.ReadHostLine([]byte(line)); err != nil {
			t.Errorf("%s: %v", line, err)
		}
	}

	// A wetrun's --json: each host's events as they come; the first to
	// plan waits for the others' plans, and says so.
	f.run(append([]string{"plan"}, hosts...)...)
	code, out, errs = f.run(append([]string{"apply", "--wetrun", "--json", "-j", "2"}, hosts...)...)
	want(t, "wetrun --json over three hosts", code, 1, out, errs)
	if !regexp.MustCompile(`(?m)^\{"format":"zap.hosts/1","host":"h[123]","wait":"hosts"\}$`).MatchString(out) {
		t.Errorf("no host waits for the others' plans:\n%s", out)
	}
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if _, err := cliout.ReadHostLine([]byte(line)); err != nil {
			t.Errorf("%s: %v", line, err)
		}
	}
}

// TestOneHostFlags: -j, --fail-fast and --skip-changed change nothing for
// one config, so given with one they are a usage error (exit 2) naming
// them, before anything is read; --skip-changed takes --wetrun.
func TestOneHostFlags(t *testing.T) {
	f := newFake(t)
	f.setPass(observe(t, absent, absent), "")
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"plan", "-j", "2"}, "error: -j: read only over several configs, and this command names one"},
		{[]string{"status", "--fail-fast"}, "error: --fail-fast: read only"},
		{[]string{"apply", "--wetrun", "-j", "1", "--skip-changed"}, "error: -j, --skip-changed: read only"},
		{[]string{"apply", "--skip-changed"}, "error: --skip-changed takes --wetrun"},
	} {
		code, out, errs := f.run(tc.args...)
		want(t, strings.Join(tc.args, " "), code, 2, out, errs)
		if !strings.Contains(errs, tc.msg) || out != "" {
			t.Errorf("%s: want %q on stderr and nothing on stdout:\nstdout:\n%s\nstderr:\n%s", strings.Join(tc.args, " "), tc.msg, out, errs)
		}
	}
	// Left at its default, -j is no flag given.
	code, out, errs := f.run("plan")
	want(t, "plan", code, 0, out, errs)
}

// TestLiveBlock: a line per host not yet printed, redrawn in place (the
// cursor up over the block), erased whole before output, without the
// printed hosts after; past its room, the rest counted on one line.
func TestLiveBlock(t *testing.T) {
	var b strings.Builder
	hosts := []*hostRun{{label: "web"}, {label: "database"}, {label: "cache"}}
	l := &liveHosts{w: &b, hosts: hosts, state: []string{liveStart, liveStart, liveSlot}}
	l.set(0, liveRunning)
	first := "\r  web       running\x1b[K\n\r  database  starting\x1b[K\n\r  cache     waiting for a slot\x1b[K\n"
	if b.String() != first {
		t.Fatalf("first draw %q, want %q", b.String(), first)
	}
	b.Reset()
	l.set(0, "done, exit 0")
	if !strings.HasPrefix(b.String(), "\x1b[3A\r  web       done, exit 0\x1b[K\n") {
		t.Fatalf("redraw %q: want the cursor up 3 and web's line drawn over", b.String())
	}
	b.Reset()
	l.pause()
	l.set(1, liveRunning) // not drawn while paused
	if b.String() != "\x1b[3A\r\x1b[J" {
		t.Fatalf("pause wrote %q, want the block erased", b.String())
	}
	b.Reset()
	l.printedHosts(1)
	l.resume()
	if want := "\r  database  running\x1b[K\n\r  cache     waiting for a slot\x1b[K\n"; b.String() != want {
		t.Fatalf("resume drew %q, want %q", b.String(), want)
	}
	b.Reset()
	l.height = 3 // room for two lines: one host and the count
	l.hosts, l.state = append(l.hosts, &hostRun{label: "queue"}), append(l.state, liveSlot)
	l.set(2, liveRunning)
	if want := "\x1b[2A\r  database  running\x1b[K\n\r  … and 2 more host(s)\x1b[K\n"; b.String() != want {
		t.Fatalf("short terminal: drew %q, want %q", b.String(), want)
	}
	b.Reset()
	l.done()
	if b.String() != "\x1b[2A\r\x1b[J" {
		t.Fatalf("done wrote %q, want the block erased", b.String())
	}
}

// TestHostLinesWhole: a host's stdout under --json goes on as whole lines,
// whatever the writes' cuts, and flush sends a last line with no newline.
func TestHostLinesWhole(t *testing.T) {
	var got []string
	w := &hostLines{emit: func(line []byte) { got = append(got, string(line)) }}
	for _, p := range []string{`{"a":`, "1}\n{\"b\"", ":2}\n{\"c\":3}\n{\"d\"", ":4}"} {
		w.Write([]byte(p))
	}
	w.flush()
	if want := []string{`{"a":1}`, `{"b":2}`, `{"c":3}`, `{"d":4}`}; !slices.Equal(got, want) {
		t.Fatalf("lines %q, want %q", got, want)
	}
}
