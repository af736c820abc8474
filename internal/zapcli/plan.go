package zapcli

import (
	"context"
	"fmt"

	"github.com/zap-go/zap/internal/render"
	"github.com/zap-go/zap/internal/state"
)

// cmdValidate is zap config validate: evaluation and its gates only.
func (a *app) cmdValidate(ctx context.Context, config string) error {
	s, err := a.open(config, false)
	if err != nil {
		return err
	}
	ev, err := s.load(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "ok: %d resource(s)\n", len(ev.decl.Resources))
	return nil
}

// preview runs the pass plan and a dry apply share: evaluate, check the
// state directory, detect, plan.
func (s *session) preview(ctx context.Context) (*evaluation, *detection, *planned, error) {
	s.earlyWanted = true
	defer s.stopEarlyDetect()
	ev, err := s.load(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := s.conn.checkConnectable(); err != nil {
		return nil, nil, nil, err
	}
	if _, err := s.lastRunOf(ev.decl); err != nil {
		return nil, nil, nil, err
	}
	s.warmSudo(ctx, ev.decl, false)
	det, err := s.detectThenPlan(ctx, ev)
	if err != nil {
		return nil, nil, nil, err
	}
	pl, err := s.plan(ctx, det)
	if err != nil {
		return nil, nil, nil, err
	}
	return ev, det, pl, nil
}

// cmdPlan is zap plan: it reports, so pending changes exit 0.
func (a *app) cmdPlan(ctx context.Context, config string, diff bool) error {
	s, err := a.open(config, true)
	if err != nil {
		return err
	}
	ev, det, pl, err := s.preview(ctx)
	if err != nil {
		return err
	}
	a.warnBadValues(badValues(pl.plan, s.res))
	render.Plan(a.stdout, pl.plan, render.PlanOptions{Mode: render.ModePlan, Diff: diff,
		Unbindable: s.conn.masked, Unrecorded: s.conn.maskedHost})
	if err := s.recordPass(state.CmdPlan, true, pl.plan.Hash, ev, det); err != nil {
		return err
	}
	return exit(verdictCode(det.obs))
}

// cmdApply is a dry zap apply: it judges, so pending changes exit 2, and a
// pass that couldn't establish a verdict exits 1, which outranks them.
func (a *app) cmdApply(ctx context.Context, config string) error {
	s, err := a.open(config, true)
	if err != nil {
		return err
	}
	ev, det, pl, err := s.preview(ctx)
	if err != nil {
		return err
	}
	a.warnBadValues(badValues(pl.plan, s.res))
	render.Plan(a.stdout, pl.plan, render.PlanOptions{Mode: render.ModeApply,
		Unbindable: s.conn.masked, Unrecorded: s.conn.maskedHost})
	if err := s.recordPass(state.CmdApply, true, pl.plan.Hash, ev, det); err != nil {
		return err
	}
	if code := verdictCode(det.obs); code != 0 {
		return exit(code)
	}
	if len(pl.plan.Changes) > 0 {
		return exit(2)
	}
	return nil
}

// cmdDetect is zap detect: detection rendered raw.
func (a *app) cmdDetect(ctx context.Context, config string) error {
	s, err := a.open(config, true)
	if err != nil {
		return err
	}
	ev, err := s.load(ctx)
	if err != nil {
		return err
	}
	if err := s.conn.checkConnectable(); err != nil {
		return err
	}
	if _, err := s.lastRunOf(ev.decl); err != nil {
		return err
	}
	s.warmSudo(ctx, ev.decl, false)
	det, err := s.detect(ctx, ev)
	if err != nil {
		return err
	}
	render.Detect(a.stdout, det.obs)
	if s.conn.unrecorded() {
		fmt.Fprintln(a.stdout)
		render.Unrecorded(a.stdout, s.conn.maskedHost)
	}
	if err := s.recordPass(state.CmdDetect, false, "", ev, det); err != nil {
		return err
	}
	return exit(verdictCode(det.obs))
}
