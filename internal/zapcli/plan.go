package zapcli

import (
	"context"
	"fmt"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/zap-go/zap/internal/pass"
	"github.com/zap-go/zap/internal/render"
	"github.com/zap-go/zap/internal/state"
)

// planCommand is zap plan [--diff] [CONFIG].
func (a *app) planCommand(f *flagSets) *ffcli.Command {
	fs := f.lockFlag(f.target("zap plan"))
	diff := fs.Bool("diff", false, "add each drifted resource's current → desired lines above its steps")
	return &ffcli.Command{
		Name:       "plan",
		ShortUsage: "zap plan [--diff] [--no-lock] [CONFIG]",
		ShortHelp:  "detect every resource and print the plan",
		LongHelp: `Detects every declared resource live and prints the changeset: one [+]
(create) or [~] (update) line per resource, what it declares and its steps
under it, and the plan_hash at the end. The pass is recorded as a preview, so
a following zap apply --wetrun binds to it.

A resource whose pin is tracked in zap.lock is compared against its entry
while the entry is current; one that is missing, stale or unverifiable holds
the resource, under the LOCK banner naming what to run.

Exit status: 0 the plan was printed (changes pending or not); 1 a resource
couldn't be read (a tracked pin not current included) or a referenced
variable is unset; 2 an input error.`,
		FlagSet: fs,
		Exec: onConfig(func(ctx context.Context, config string) error {
			return a.cmdPlan(ctx, config, *diff)
		}),
	}
}

// cmdPlan is zap plan: it reports, so pending changes exit 0.
func (a *app) cmdPlan(ctx context.Context, config string, diff bool) error {
	det, _, err := a.preview(ctx, config, state.CmdPlan, render.PlanOptions{Mode: render.ModePlan, Diff: diff})
	if err != nil {
		return err
	}
	return exit(pass.VerdictCode(det.Obs))
}

// preview is the pass plan and a dry apply share (pass.Session.Preview),
// its plan printed with opts and recorded as cmd's preview. A value a
// planned command can't carry is a warning: the wetrun refuses it.
func (a *app) preview(ctx context.Context, config string, cmd state.Command, opts render.PlanOptions) (*pass.Detection, *pass.Planned, error) {
	s, err := a.open(config, true)
	if err != nil {
		return nil, nil, err
	}
	ev, det, pl, err := s.Preview(ctx)
	if err != nil {
		return nil, nil, err
	}
	a.warnBadValues(pass.BadValues(pl.Plan, s.Res))
	a.warnBadURLs(pass.BadURLs(ev.Decl, s.Res))
	opts.Unbindable, opts.Unrecorded = s.Conn.Masked, s.Conn.MaskedHost
	if render.Lock(a.stdout, s.lockView(false)) {
		fmt.Fprintln(a.stdout)
	}
	render.Plan(a.stdout, pl.Plan, opts)
	if err := s.RecordPass(cmd, true, pl.Plan.Hash, ev, det); err != nil {
		return nil, nil, err
	}
	return det, pl, nil
}

// lockView is the standing of the session's tracked pins for render;
// written says the pins it minted are in zap.lock.
func (s *session) lockView(written bool) *render.LockView {
	p := s.Pins
	return &render.LockView{Report: p.Report, Minted: p.Minted, Written: written, NoLock: s.NoLock(), Tracked: p.Tracked}
}
