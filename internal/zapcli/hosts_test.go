package zapcli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/review"
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
}
