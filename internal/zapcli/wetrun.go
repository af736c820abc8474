package zapcli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/kinds"
	"github.com/zap-go/zap/internal/pass"
	"github.com/zap-go/zap/internal/render"
	"github.com/zap-go/zap/internal/review"
	"github.com/zap-go/zap/internal/stages"
	"github.com/zap-go/zap/internal/state"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/events"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

type wetrunOptions struct {
	expect string // --expect-plan
	json   bool   // --json
	// skipChanged is --skip-changed; together is where the wetruns of
	// several hosts meet (hostswet.go), nil for a run of one.
	skipChanged bool
	together    *together
}

// cmdWetrun is zap apply --wetrun: detect and plan again, execute only the
// plan that was reviewed, then read every resource again.
func (a *app) cmdWetrun(ctx context.Context, config string, o wetrunOptions) error {
	s, ev, last, err := a.start(ctx, config, checkWetrun)
	if err != nil {
		return err
	}
	if err := refuseTargetHolds(pass.TargetHolds(ev.Decl, s.Res)); err != nil {
		return err
	}
	h := pass.HostKey(ev.Decl, s.Res)
	det, err := s.Observe(ctx, ev, true, true)
	if err != nil {
		return err
	}
	pl, err := s.Plan(ctx, det)
	if err != nil {
		return err
	}
	if err := refuseBadValues(pass.BadValues(pl.Plan, s.Res)); err != nil {
		return err
	}
	if err := refuseBadTemplates(pass.BadTemplates(ev.Decl, s.Res)); err != nil {
		return err
	}
	if err := refuseBadURLs(pass.BadURLs(ev.Decl, s.Res)); err != nil {
		return err
	}
	w := &wetrun{s: s, o: o, ev: ev, det: det, pl: pl}
	gate := review.Bind(pl.Plan.Hash, o.expect, last)
	if o.together != nil {
		var reason string
		gate, reason = o.together.arrive(a.host, a.maskString, pl.Plan, gate, last)
		switch reason {
		case "":
		case reasonDeclined:
			return w.decline()
		default:
			return w.refuse(reason)
		}
	} else if review.Mismatch(pl.Plan.Hash, o.expect) {
		return w.refuse(render.ReasonExpect)
	}
	if len(pl.Plan.Changes) == 0 {
		return w.empty()
	}
	confirmed := false
	if gate.Reason != "" {
		tty, ok := a.terminal()
		if !ok || o.json || o.expect != "" {
			return w.refuse(gate.Reason)
		}
		yes, err := review.Ask(tty, a.stderr, a.flushOutputs, pl.Plan, gate.Reason, w.shown())
		if err != nil {
			return exit.InWorld(err)
		}
		if !yes {
			return w.decline()
		}
		confirmed = true
	}
	if err := gate.Claim(s.Store, s.Abs, h); err != nil {
		if errors.Is(err, state.ErrClaimLost) {
			return exit.Fail(2, "another wetrun claimed this preview first: one preview covers one wetrun, so this one changed nothing",
				"preview again (zap apply), then run zap apply --wetrun")
		}
		return pass.StateError(err)
	}
	// The pins this wetrun minted go into zap.lock before anything runs.
	if err := s.WriteEntries(s.Pins.Minted); err != nil {
		return err
	}
	if err := s.Record(state.CmdWetrun, false, pl.Plan.Hash, ev, det); err != nil {
		return err
	}
	return w.execute(ctx, confirmed)
}

// refuseTargetHolds refuses a wetrun (exit 2, before any contact) while
// resources hold for want of a field the config doesn't declare, rather
// than apply the rest: the config is what is missing, not the machine.
func refuseTargetHolds(holds []pass.TargetHold) error {
	if len(holds) == 0 {
		return nil
	}
	var msgs, hints []string
	for _, h := range holds {
		msgs = append(msgs, h.Problem())
		hints = append(hints, h.Hint())
	}
	return exit.Fail(2, strings.Join(msgs, "\n")+"\na wetrun refuses, before anything runs, a config that holds resources for want of a field it doesn't declare, rather than apply the rest",
		hints...)
}

// checkWetrun refuses a wetrun on a plan no review can bind, and one with a
// referenced variable unset.
func checkWetrun(s *pass.Session) error {
	if err := s.Conn.CheckBindable(); err != nil {
		return err
	}
	if res := s.Res; len(res.Unresolved) > 0 {
		return exit.Fail(2, fmt.Sprintf("%d referenced variable(s) are unset or empty: %s\na wetrun starts only when every variable the config references is set, so no empty value is ever acted on",
			len(res.Unresolved), strings.Join(res.Unresolved, ", ")),
			"provide them (--env-file or the environment) and re-run")
	}
	return nil
}

// wetrun is one wetrun past detection and planning.
type wetrun struct {
	s   *session
	o   wetrunOptions
	ev  *pass.Evaluation
	det *pass.Detection
	pl  *pass.Planned
}

// text is where the text report goes: stdout, or stderr under --json,
// whose stdout carries events only.
func (w *wetrun) text() io.Writer {
	if w.o.json {
		return w.s.a.stderr
	}
	return w.s.a.stdout
}

// empty ends a wetrun whose plan has no changes: it needs no review and
// runs nothing; held resources still exit 1.
func (w *wetrun) empty() error {
	p := w.pl.Plan
	if err := w.s.WriteEntries(w.s.Pins.Minted); err != nil {
		return err
	}
	if err := w.s.Record(state.CmdWetrun, false, p.Hash, w.ev, w.det); err != nil {
		return err
	}
	code := 0
	if len(p.Held) > 0 {
		code = 1
	}
	if !w.o.json {
		w.lockBanner(true)
		render.Plan(w.text(), p, render.PlanOptions{Mode: render.ModeWetrun})
		fmt.Fprintln(w.text(), "nothing to execute")
		w.orphansText()
		return exit.Reported(code)
	}
	emit := w.emitter()
	emit(&events.Event{Event: events.RunStarted, Format: events.Format, PlanHash: p.Hash})
	emit(&events.Event{Event: events.RunOK})
	w.emitHeld(emit)
	w.emitOrphans(emit)
	emit(&events.Event{Event: events.Done, Exit: &code, HeldN: len(p.Held)})
	return exit.Reported(code)
}

// refuse renders the plan under the REFUSED banner, records it as the
// preview, and exits 2 with nothing changed.
func (w *wetrun) refuse(reason string) error {
	t := w.text()
	expected := ""
	if reason == render.ReasonExpect {
		expected = w.o.expect
	}
	render.Refused(t, reason, expected)
	return w.unchanged(state.CmdRefused)
}

// decline renders the plan under the DECLINED banner, records it as the
// preview, and exits 2 with nothing changed.
func (w *wetrun) decline() error {
	t := w.text()
	render.Declined(t)
	return w.unchanged(state.CmdDeclined)
}

// unchanged ends a wetrun that changes nothing, under the banner written:
// the plan, recorded as the preview with cmd, and exit 2. Under --json the
// report goes to stderr and stdout stays empty: the run has no events.
func (w *wetrun) unchanged(cmd state.Command) error {
	t := w.text()
	fmt.Fprintln(t)
	w.lockBanner(false)
	o := w.shown()
	o.Mode = render.ModeRefused
	render.Plan(t, w.pl.Plan, o)
	w.orphansText()
	if err := w.s.Record(cmd, true, w.pl.Plan.Hash, w.ev, w.det); err != nil {
		return err
	}
	return exit.Reported(2)
}

// shown is how a wetrun shows the plan it asks about or refuses: under
// --diff, with each drifted resource's current → desired lines and each
// file's content diff.
func (w *wetrun) shown() render.PlanOptions {
	if !w.s.a.diff {
		return render.PlanOptions{}
	}
	return render.PlanOptions{Diff: true, Diffs: render.ContentDiffs(w.det.Obs)}
}

// lockBanner writes the LOCK banner, if any, to the text report; written
// says the pins the wetrun minted are in zap.lock.
func (w *wetrun) lockBanner(written bool) {
	if render.Lock(w.text(), w.s.lockView(written)) {
		fmt.Fprintln(w.text())
	}
}

// emitter writes events to stdout, one JSON line each (app.emit).
func (w *wetrun) emitter() func(*events.Event) { return w.s.a.emit }

// orphansText warns, in the text report, of each resource an earlier run
// read that the config no longer declares (render.Orphans).
func (w *wetrun) orphansText() {
	render.Orphans(w.text(), w.s.Orphans, w.s.Elsewhere)
}

// emitOrphans is orphansText as events: one orphaned event each.
func (w *wetrun) emitOrphans(emit func(*events.Event)) {
	for _, id := range w.s.Orphans {
		emit(&events.Event{Event: events.Orphaned, ID: id})
	}
}

func (w *wetrun) emitHeld(emit func(*events.Event)) {
	for _, h := range w.pl.Plan.Held {
		reason := h.Reason
		if reason == "" {
			reason = "waits on " + strings.Join(h.WaitsOn, ", ")
		}
		emit(&events.Event{Event: events.Held, ID: h.ID, Type: h.Type, Reason: reason})
	}
}

// execute runs the plan through zap-exec, reads every resource again and
// reports what still isn't converged.
func (w *wetrun) execute(ctx context.Context, confirmed bool) error {
	a, p := w.s.a, w.pl.Plan
	t := w.text()
	if !w.o.json && !confirmed {
		// A confirmed plan was shown with the question already.
		w.lockBanner(true)
		render.Plan(t, p, render.PlanOptions{Mode: render.ModeWetrun})
		fmt.Fprintln(t)
	}
	n, execErr := w.runExec(ctx, t)
	if execErr != nil && !n.Started {
		// zap-exec stopped before its first event: nothing was changed.
		return execErr
	}
	code := 0
	if n.Failed > 0 || len(p.Held) > 0 {
		code = 1
	}
	doneErr := ""
	var se *stages.Error
	if errors.As(execErr, &se) && se.Status == 1 && n.Failed > 0 {
		// zap-exec's own exit for a change that failed: its events said
		// what failed, and the run goes on to read the target again.
		execErr = nil
	}
	if execErr != nil {
		code = 1
		msg := execErr.Error()
		if w.o.json {
			doneErr = msg
		} else {
			render.Error(a.stderr, "the run didn't finish: "+msg, exit.Hints(execErr)...)
		}
	}

	// The observe pass: read every resource again (reread.go: as whom).
	var residual []render.ResidualItem
	det2, obsErr := w.reread(ctx)
	if obsErr == nil {
		if err := w.s.Record(state.CmdObserve, false, "", w.ev, det2); err != nil {
			// The pass was read; only its report couldn't be kept.
			code = 1
			render.Error(a.stderr, "the reading again isn't recorded: "+err.Error(), exit.Hints(err)...)
		}
		residual = residuals(p, det2.Obs, n.NotOK)
		if len(residual) > 0 {
			code = 1
		}
	} else {
		code = 1
	}
	if w.o.json {
		w.doneJSON(code, n, residual, obsErr, doneErr)
		return exit.Reported(code)
	}
	w.doneText(code, n, residual, det2, obsErr)
	w.orphansText()
	return exit.Reported(code)
}

// runExec runs the plan through zap-exec (pass.Session.Exec), passing its
// events on as they come: as they are under --json, else as progress on t,
// with the change under way shown on stderr: drawn live on a terminal,
// else as plain lines.
func (w *wetrun) runExec(ctx context.Context, t io.Writer) (pass.Tally, error) {
	a := w.s.a
	progress := render.NewProgress(t)
	live := false
	if !w.o.json {
		if tty, width, ok := a.statusScreen(); ok {
			progress.Live(tty, width, a.maskString, a.now)
			live = true
		} else {
			progress.Plain(a.stderr, a.now)
		}
		defer progress.Close()
	}
	return w.s.Exec(ctx, w.pl, live, func(line []byte, e *events.Event) {
		if w.o.json {
			a.json.started = true
			a.stdout.Write(append(maskJSON(a.masker, line), '\n'))
		} else {
			progress.Event(e)
		}
	})
}

// doneJSON ends a wetrun's event stream: observe_failed when the reading
// again failed, the held and residual resources, and done.
func (w *wetrun) doneJSON(code int, n pass.Tally, residual []render.ResidualItem, obsErr error, doneErr string) {
	p := w.pl.Plan
	emit := w.emitter()
	if obsErr != nil {
		emit(&events.Event{Event: events.ObserveFailed, Error: obsErr.Error()})
	}
	w.emitHeld(emit)
	w.emitOrphans(emit)
	for _, r := range residual {
		reason := string(r.Verdict)
		if r.Reason != "" {
			reason += ": " + r.Reason
		}
		emit(&events.Event{Event: events.Residual, ID: r.ID, Type: r.Type, Reason: reason})
	}
	emit(&events.Event{Event: events.Done, Exit: &code, OK: n.OK, Failed: n.Failed, Skipped: n.Skipped,
		Residual: len(residual), HeldN: len(p.Held), Error: doneErr})
}

// doneText ends a wetrun's text report: the reading again that failed, or
// the residual and held resources and what the reading again observed,
// with the changes that failed or were skipped counted.
func (w *wetrun) doneText(code int, tally pass.Tally, residual []render.ResidualItem, det2 *pass.Detection, obsErr error) {
	p, t := w.pl.Plan, w.text()
	if obsErr != nil {
		fmt.Fprintf(t, "\nNOT OBSERVED — reading the target again failed, so converged is not established:\n  %s\n",
			strings.ReplaceAll(obsErr.Error(), "\n", "\n  "))
	}
	if len(residual) > 0 {
		fmt.Fprintln(t)
		render.Residual(t, residual)
	}
	if len(p.Held) > 0 {
		ids := make([]string, len(p.Held))
		for i, h := range p.Held {
			ids[i] = h.ID
		}
		fmt.Fprintf(t, "\nnot acted on: %d held resource(s) (see UNDETERMINED above): %s\n", len(p.Held), strings.Join(ids, ", "))
	}
	if obsErr != nil || len(residual) > 0 {
		return
	}
	fmt.Fprintf(t, "\nObserved: %d resource(s) read again", len(det2.Obs.Resources))
	// A stateless kind's resource (a pipeline) never reads converged: it
	// runs on every wetrun.
	var types []declaration.Kind
	n := map[declaration.Kind]int{}
	for i := range det2.Obs.Declaration.Resources {
		r := &det2.Obs.Declaration.Resources[i]
		if kinds.Of(r).Stateless() {
			if n[r.Type] == 0 {
				types = append(types, r.Type)
			}
			n[r.Type]++
		}
	}
	counts := make([]string, len(types))
	for i, typ := range types {
		counts[i] = fmt.Sprintf("%d %s(s)", n[typ], typ)
	}
	switch {
	case tally.Failed > 0 || tally.Skipped > 0:
		fmt.Fprintf(t, "; not converged: %s\n", notRun(tally))
	case code == 0 && len(counts) > 0:
		fmt.Fprintf(t, ", all converged but %s, which run on every wetrun\n", strings.Join(counts, " and "))
	case code == 0:
		fmt.Fprintln(t, ", all converged")
	default:
		fmt.Fprintln(t, "; none residual")
	}
}

// residuals lists every resource the observe pass doesn't read as
// converged, except a change that failed or was skipped (the run's failure
// already), a held resource (its undetermined verdict already) and a
// stateless one (a pipeline, never converged: it runs on every wetrun).
func residuals(p *plan.Plan, o *observation.Observations, notOK map[string]bool) []render.ResidualItem {
	held := map[string]bool{}
	for _, h := range p.Held {
		held[h.ID] = true
	}
	var out []render.ResidualItem
	for i, r := range o.Resources {
		if r.Verdict == observation.Converged || held[r.ID] || notOK[r.ID] {
			continue
		}
		if kinds.Of(&o.Declaration.Resources[i]).Stateless() {
			// A pipeline reads absent by construction: it always runs.
			continue
		}
		out = append(out, render.ResidualItem{ID: r.ID, Type: o.Declaration.Resources[i].Type,
			Verdict: r.Verdict, Reason: r.Reason, Drift: r.Drift})
	}
	return out
}

// notRun counts the changes a wetrun didn't make: those that failed and
// those skipped after them.
func notRun(n pass.Tally) string {
	var parts []string
	if n.Failed > 0 {
		parts = append(parts, fmt.Sprintf("%d change(s) failed", n.Failed))
	}
	if n.Skipped > 0 {
		parts = append(parts, fmt.Sprintf("%d skipped", n.Skipped))
	}
	return strings.Join(parts, ", ") + " (see above)"
}
