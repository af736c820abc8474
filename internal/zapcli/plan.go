package zapcli

import (
	"context"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/zap-go/zap/internal/render"
	"github.com/zap-go/zap/internal/state"
)

// planCommand is zap plan [--diff] [CONFIG].
func (a *app) planCommand(f *flagSets) *ffcli.Command {
	fs := f.target("zap plan")
	diff := fs.Bool("diff", false, "add each drifted resource's current → desired lines above its steps")
	return &ffcli.Command{
		Name:       "plan",
		ShortUsage: "zap plan [--diff] [CONFIG]",
		ShortHelp:  "detect every resource and print the plan",
		LongHelp: `Detects every declared resource live and prints the changeset: one [+]
(create) or [~] (update) line per resource, what it declares and its steps
under it, and the plan_hash at the end. The pass is recorded as a preview, so
a following zap apply --wetrun binds to it.

Exit status: 0 the plan was printed (changes pending or not); 1 a resource
couldn't be read or a referenced variable is unset; 2 an input error.`,
		FlagSet: fs,
		Exec: onConfig(func(ctx context.Context, config string) error {
			return a.cmdPlan(ctx, config, *diff)
		}),
	}
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
