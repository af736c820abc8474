package zapcli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/observation"
)

const literalRemoteDecl = `{"format":"zap.declaration/1","target":{"host":"203.0.113.7","user":"deploy"},"resources":[{"id":"d","path":"/srv/d","type":"directory"}]}`

// observeRemote makes observations of literalRemoteDecl with d's verdict.
func observeRemote(t *testing.T, v observation.Verdict) string {
	t.Helper()
	r, _ := json.Marshal(observation.Resource{ID: "d", Verdict: v})
	doc := `{"format":"zap.observations/1","declaration":` + literalRemoteDecl + `,
		"context":{"target":"203.0.113.7","user":"deploy","home":"/home/deploy"},"batches":[{"lane":"login","queries":1}],
		"resources":[` + string(r) + `]}`
	o, err := observation.Read([]byte(mustCanon(t, doc)))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := o.Encode()
	return string(b) + "\n"
}

// A preview of a remote target named with no reference starts zap-detect
// as the evaluator answers (early.go) and takes its answer: one zap-detect,
// its warning passed on once, the plan as ever.
func TestEarlyDetectTaken(t *testing.T) {
	for _, cmd := range []string{"plan", "apply"} {
		t.Run(cmd, func(t *testing.T) {
			f := newFake(t)
			f.stage("zap-eval", 0, "", mustCanon(t, literalRemoteDecl)+"\n")
			obs := observeRemote(t, absent)
			f.stage("zap-detect", 0, "warning: a note from zap-detect\n", obs)
			p, _ := planFor(t, obs)
			f.stage("zap-plan", 0, "", p)
			code, out, errs := f.run(cmd)
			wantCode := 0
			if cmd == "apply" {
				wantCode = 2
			}
			want(t, cmd, code, wantCode, out, errs)
			if !strings.Contains(out, "Plan: 1 change(s)") {
				t.Errorf("stdout:\n%s", out)
			}
			if n := strings.Count(errs, "a note from zap-detect"); n != 1 {
				t.Errorf("zap-detect's warning passed on %d time(s):\n%s", n, errs)
			}
			if n := strings.TrimSpace(readOr(f.dir+"/zap-detect.count", "0")); n != "1" {
				t.Errorf("zap-detect ran %s time(s)", n)
			}
		})
	}
}

// A report that isn't private, which zap refuses before it would have run
// zap-detect, keeps the early one from starting at all: zap's error alone
// (internal/pass's TestEarlyDetectNotStartedOnRefusedReport holds that
// nothing starts, so nothing connects).
func TestEarlyDetectStopped(t *testing.T) {
	f := newFake(t)
	f.stage("zap-eval", 0, "", mustCanon(t, literalRemoteDecl)+"\n")
	obs := observeRemote(t, converged)
	f.stage("zap-detect", 0, "", obs)
	p, _ := planFor(t, obs)
	f.stage("zap-plan", 0, "", p)
	code, out, errs := f.run("plan")
	want(t, "first plan", code, 0, out, errs)
	reports, _ := filepath.Glob(filepath.Join(f.home, ".zap", "reports", "*"))
	if len(reports) != 1 {
		t.Fatalf("reports: %v", reports)
	}
	if err := os.Chmod(reports[0], 0o666); err != nil {
		t.Fatal(err)
	}
	f.stage("zap-detect", 0, "warning: a note from zap-detect\n", obs)
	code, out, errs = f.run("plan")
	want(t, "plan on a shared report", code, 2, out, errs)
	if !strings.HasPrefix(errs, "error: state: ") || strings.Contains(errs, "zap-detect") || out != "" {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out, errs)
	}

}
