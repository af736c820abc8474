package deploy

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/localops"
	"github.com/zap-go/zap/internal/mask"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/deployplan"
	"github.com/zap-go/zap/pkg/events"
)

// TestACheckFailureNamesItsURLOnce: a failed health or readiness check's
// step_failed event names the URL once, in the step's summary ahead of
// what it answered, and the run's failure says it once as the text report
// does; a readiness check the app doesn't serve (404) is skipped.
func TestACheckFailureNamesItsURLOnce(t *testing.T) {
	const url = "https://app.example/health"
	for _, c := range []struct {
		name   string
		health Outcome
		ready  *Outcome
		id     string
		want   string
		fail   string
	}{
		{name: "health 500", health: Outcome{Status: 500, Attempts: 2}, id: "health",
			want: "health: " + url + " failed: answered 500 after 2 attempt(s)", fail: "health: " + url + " answered 500 after 2 attempt(s)"},
		{name: "health no answer", health: Outcome{Attempts: 3, LastErr: context.DeadlineExceeded}, id: "health",
			want: "health: " + url + " failed: didn't answer after 3 attempt(s): context deadline exceeded",
			fail: "health: " + url + " didn't answer after 3 attempt(s): context deadline exceeded"},
		{name: "ready 302", health: Outcome{Status: 200, Attempts: 1}, ready: &Outcome{Status: 302, Attempts: 1}, id: "ready",
			want: "readiness: https://app.example/ready failed: answered 302 after 1 attempt(s) (a redirect is not followed, so a 3xx is not healthy)",
			fail: "ready: https://app.example/ready answered 302 after 1 attempt(s) (a redirect is not followed, so a 3xx is not healthy)"},
		{name: "ready 404", health: Outcome{Status: 200, Attempts: 1}, ready: &Outcome{Status: 404, Attempts: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &deployplan.Plan{Path: t.TempDir(), Source: deployplan.Source{Version: "aaaaaaaaaaaa"},
				Steps: deployplan.Steps{Health: &deployplan.Check{URL: declaration.Lit(url), Attempts: 1, IntervalMS: 1}, Ready: &deployplan.Check{URL: declaration.Lit("https://app.example/ready"), Attempts: 1, IntervalMS: 1}}}
			var evs bytes.Buffer
			var warned []string
			local := localops.New(os.Environ())
			r := &Runner{Plan: p, Target: local, Local: local, Events: &evs, Mask: &mask.Masker{},
				URLs: URLs{Health: url, Ready: "https://app.example/ready"},
				Warn: func(s string) { warned = append(warned, s) },
				Health: func(_ context.Context, u string, _ *deployplan.Check, ready bool) Outcome {
					o := c.health
					if ready {
						o = *c.ready
					}
					o.URL = u
					return o
				}}
			if c.ready == nil {
				p.Steps.Ready = nil
			}
			r.here = &execute.Runner{Host: local, Events: &evs, Mask: r.Mask}
			r.there = &execute.Runner{Host: local, Events: &evs, Mask: r.Mask}
			err := r.afterSwap(context.Background())
			var failed *events.Event
			for _, l := range strings.Split(strings.TrimSpace(evs.String()), "\n") {
				e, rerr := events.Read([]byte(l))
				if rerr != nil {
					t.Fatalf("event %q: %v", l, rerr)
				}
				if e.Event == events.StepFailed {
					failed = e
				}
			}
			if c.id == "" {
				if err != nil || failed != nil {
					t.Fatalf("a readiness check the app doesn't serve: %v, %+v", err, failed)
				}
				return
			}
			if failed == nil || failed.ID != c.id || failed.Error != c.want {
				t.Fatalf("step_failed: %+v, want the error %q", failed, c.want)
			}
			if err == nil || err.Error() != c.fail {
				t.Errorf("the run's failure: %v, want %q", err, c.fail)
			}
		})
	}
}
