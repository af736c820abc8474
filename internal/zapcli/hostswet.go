package zapcli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/zap-go/zap/internal/escape"
	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/render"
	"github.com/zap-go/zap/internal/review"
	"github.com/zap-go/zap/internal/state"
	"github.com/zap-go/zap/pkg/cliout"
	"github.com/zap-go/zap/pkg/plan"
)

// The reasons a wetrun over several hosts refuses a host for that a run of
// one has no words for (render.Refused's reason).
const (
	reasonDeclined = "declined"
	reasonOthers   = "another host's plan changed since it was reviewed, and without --skip-changed no host runs"
	reasonCombined = "the hosts' plans match neither --expect-plan's combined plan_hash nor their last previews"
)

// checkSkipChanged refuses --skip-changed (given in fs) without --wetrun
// (exit 2, a usage error): it says which hosts of a wetrun run, and a dry
// run runs none.
func checkSkipChanged(fs *flag.FlagSet, wetrun bool) error {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "skip-changed" })
	if given && !wetrun {
		return exit.Fail(2, "--skip-changed takes --wetrun: it says which hosts of a wetrun over several run, and a dry run changes no host")
	}
	return nil
}

// wetrunHosts is zap apply --wetrun on one config, or on several
// (hostConfigs): each host's own wetrun (cmdWetrun), which meet once
// planned (together) so that every host runs only the plan that was shown,
// or none does unless --skip-changed.
func (a *app) wetrunHosts(ctx context.Context, fs *flag.FlagSet, args []string, o wetrunOptions) error {
	hosts, err := hostConfigs(args)
	if err != nil {
		return err
	}
	if hosts == nil {
		if err := oneHost(fs); err != nil {
			return err
		}
		return onConfig(func(ctx context.Context, config string) error {
			return a.cmdWetrun(ctx, config, o)
		})(ctx, args)
	}
	t := &together{expect: o.expect, skipChanged: o.skipChanged, hosts: hosts, a: a, decided: make(chan struct{})}
	if tty, ok := a.terminal(); ok && !o.json && o.expect == "" && !o.skipChanged {
		t.tty = tty
	}
	each := o
	each.expect, each.together = "", t
	a.onSkip = t.gone
	return a.runHosts(ctx, hosts, func(c *app, ctx context.Context, config string) error {
		defer t.gone(c.host)
		return c.cmdWetrun(ctx, config, each)
	})
}

// together is where the wetruns of several hosts meet, each once its plan
// is made and before it asks or claims anything: when every host has
// arrived or ended, it decides which run.
//
// Without --expect-plan a host is bound as it is alone: to its own last
// preview (review.Bind). With --expect-plan COMBINED the hosts are bound
// when COMBINED is the combined plan_hash of their plans now (every host
// runs its plan, as --expect-plan binds a run of one), or else of their
// last previews (the hosts whose plan is that preview's run; the others
// changed). A host whose plan changed is refused alone and named; the
// others run only with --skip-changed, else they are refused too. A host
// with nothing to execute is never one that changed, but its plan_hash
// still counts in the combined one.
type together struct {
	expect      string
	skipChanged bool
	hosts       []*hostRun
	a           *app
	// tty is the terminal the one question is asked on (AskCombined),
	// nil when there is none to ask on, or under --json, --expect-plan or
	// --skip-changed.
	tty *os.File

	mu      sync.Mutex
	state   map[*hostRun]*arrival
	ended   map[*hostRun]bool
	decided chan struct{}
}

// arrival is one host at the meeting: its plan, its gate, its last
// preview's plan_hash ("" for none), and then what was decided for it.
type arrival struct {
	hash, preview string
	empty         bool
	gate          review.Gate
	last          *state.Loaded
	plan          *plan.Plan
	// mask masks the host's secrets out of what is shown of its plan.
	mask func(string) string
	// reason refuses the host ("" runs it, through gate).
	reason string
}

// arrive is host h at the meeting with plan p, bound by gate as a run of
// one is (last is its last run): it waits for the others, and returns the
// gate to run through, or the reason it is refused.
func (t *together) arrive(h *hostRun, mask func(string) string, p *plan.Plan, gate review.Gate, last *state.Loaded) (review.Gate, string) {
	h.setPlan(p)
	ar := &arrival{hash: p.Hash, empty: len(p.Changes) == 0, gate: gate, last: last, plan: p, mask: mask}
	if last != nil && last.Report.Preview {
		ar.preview = last.Report.PlanHash
	}
	t.mu.Lock()
	if t.state == nil {
		t.state = map[*hostRun]*arrival{}
	}
	t.state[h] = ar
	t.checkLocked()
	t.mu.Unlock()
	// A host waiting here gives its -j slot to one that hasn't planned
	// yet: every host must arrive before any is decided.
	select {
	case <-t.decided:
	default:
		t.a.hostWaits(h, cliout.WaitHosts)
		<-t.a.hostSlots
		<-t.decided
		t.a.hostSlots <- struct{}{}
		t.a.liveLine.set(h.index, liveRunning)
	}
	switch ar.reason {
	case "":
	case reasonDeclined:
		h.why = "declined: the answer was not the first eight characters of the combined plan_hash"
	default:
		h.why = "refused: " + ar.reason
	}
	return ar.gate, ar.reason
}

// gone is host h's wetrun ended: one that never arrived (it failed before
// its plan) is counted out of the meeting.
func (t *together) gone(h *hostRun) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ended == nil {
		t.ended = map[*hostRun]bool{}
	}
	t.ended[h] = true
	t.checkLocked()
}

// checkLocked decides once every host has arrived or ended.
func (t *together) checkLocked() {
	select {
	case <-t.decided:
		return
	default:
	}
	for _, h := range t.hosts {
		if t.state[h] == nil && !t.ended[h] {
			return
		}
	}
	t.decide()
	close(t.decided)
}

// decide sets each arrived host's gate or reason.
func (t *together) decide() {
	now := make([]string, len(t.hosts))
	previews := make([]string, len(t.hosts))
	for i, h := range t.hosts {
		if ar := t.state[h]; ar != nil {
			now[i], previews[i] = ar.hash, ar.preview
		}
	}
	var changed []string
	switch {
	case t.expect != "" && review.Combined(now) == t.expect:
		for _, ar := range t.state {
			if ar.gate.Reason != "" {
				// Named by the combined hash, as --expect-plan names one.
				ar.gate = review.Bind(ar.hash, ar.hash, ar.last)
			}
		}
	case t.expect != "" && review.Combined(previews) != t.expect:
		for _, ar := range t.state {
			ar.reason = reasonCombined
		}
		return
	default:
		// Bound to its own last preview, as alone.
		for _, h := range t.hosts {
			if ar := t.state[h]; ar != nil && !ar.empty && ar.gate.Reason != "" {
				ar.reason = ar.gate.Reason
				changed = append(changed, h.label)
			}
		}
	}
	if len(changed) == 0 || t.skipChanged {
		return
	}
	if combined := review.Combined(now); t.tty != nil && combined != "" {
		t.ask(changed, combined)
		return
	}
	for _, ar := range t.state {
		if ar.reason == "" {
			ar.reason = reasonOthers + " (" + escape.Line(strings.Join(changed, ", ")) + ")"
		}
	}
}

// ask asks once, at the terminal, whether to execute every host's plan as
// it is now, showing the plans of the hosts with no review (changed) and
// the summary; yes binds those hosts to their plans as --expect-plan
// would, anything else declines every host.
func (t *together) ask(changed []string, combined string) {
	show := func(w io.Writer) {
		for _, h := range t.hosts {
			ar := t.state[h]
			if ar == nil || ar.gate.Reason == "" || ar.empty {
				continue
			}
			var b strings.Builder
			render.Plan(&b, ar.plan, render.PlanOptions{Mode: render.ModeRefused})
			fmt.Fprintf(w, "=== %s (%s)\n%s\n", escape.Line(h.label), ar.gate.Reason, ar.mask(b.String()))
		}
		t.a.writeSummary(w, t.hosts, combined)
	}
	why := fmt.Sprintf("%d host(s) with no review: %s", len(changed), escape.Line(strings.Join(changed, ", ")))
	t.a.liveLine.pause()
	yes, err := review.AskCombined(t.tty, t.a.stderr, t.a.flushOutputs, combined, why, show)
	t.a.liveLine.resume()
	for _, ar := range t.state {
		switch {
		case err != nil:
			ar.reason = "the answer couldn't be read: " + err.Error()
		case !yes:
			ar.reason = reasonDeclined
		case ar.reason != "":
			ar.reason, ar.gate = "", review.Bind(ar.hash, ar.hash, ar.last)
		}
	}
}
