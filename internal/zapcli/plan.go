package zapcli

import (
	"context"
	"fmt"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/pass"
	"github.com/zap-go/zap/internal/render"
	"github.com/zap-go/zap/internal/state"
	"github.com/zap-go/zap/pkg/cliout"
)

// planCommand is zap plan [--diff] [CONFIG].
func (a *app) planCommand(f *flagSets) *ffcli.Command {
	fs := f.jobsFlag(f.lockFlag(f.target("zap plan")))
	diff := fs.Bool("diff", false, "add each drifted resource's current → desired lines and each file's content diff above its steps")
	f.jsonFlag(fs, "write the plan as one JSON document on stdout ("+cliout.PlanFormat+", docs/protocol.md), an error included", jsonMode{format: cliout.PlanFormat, command: "plan"})
	return &ffcli.Command{
		Name:       "plan",
		ShortUsage: "zap plan [--diff] [--json] [--no-lock] [-j N] [CONFIG...]",
		ShortHelp:  "detect every resource and print the plan",
		LongHelp: `Detects every declared resource live and prints the changeset: one [+]
(create) or [~] (update) line per resource, what it declares and its steps
under it, and the plan_hash at the end. The pass is recorded as a preview, so
a following zap apply --wetrun binds to it.

--diff adds, above a drifted resource's steps, a current → desired line for
each attribute that differs, and for each file whose content would change
a unified diff (3 lines of context) from the bytes on the target to the
bytes the change writes; a new file shows as all added. The target's bytes
are read in the same batch, at most 256 KiB of a regular file of its own,
never through a link; a larger or binary file shows as one "binary or
large" line, and one whose content takes a secret that can't be masked for
certain as "content withheld". Secrets show as [MASKED:NAME]. The diff is
display only: the plan and its plan_hash are the same with or without it.

A resource whose pin is tracked in zap.lock is compared against its entry
while the entry is current; one that is missing, stale or unverifiable holds
the resource, under the LOCK banner naming what to run.

--json writes the plan, its plan_hash, its holds and the lock's standing
as one JSON document on stdout instead, and an error as that document's
error; the exit status is the same.

Exit status: 0 the plan was printed (changes pending or not); 1 a resource
couldn't be read (a tracked pin not current included) or a referenced
variable is unset; 2 an input error.

Several configs (paths, or one directory holding a project per host, each a
subdirectory with a zap.ts) run as several hosts: each host's own pass, at
most -j at once, its output grouped under its name, then a summary table
and the combined plan_hash (docs/cli.md, Several hosts in one command); the
exit status is the worst of the hosts'.`,
		FlagSet: fs,
		Exec: a.onConfigs(fs, func(ctx context.Context, config string) error {
			a.diff = *diff
			return a.cmdPlan(ctx, config, *diff)
		}, func(c *app, ctx context.Context, config string) error {
			c.diff = *diff
			return c.cmdPlan(ctx, config, *diff)
		}),
	}
}

// cmdPlan is zap plan: it reports, so pending changes exit 0.
func (a *app) cmdPlan(ctx context.Context, config string, diff bool) error {
	s, det, pl, err := a.preview(ctx, config, state.CmdPlan, render.PlanOptions{Mode: render.ModePlan, Diff: diff})
	if err != nil {
		return err
	}
	code := pass.VerdictCode(det.Obs)
	if a.json != nil {
		return a.planDoc(s, det, pl, code)
	}
	return exit.Reported(code)
}

// preview is the pass plan and a dry apply share (pass.Session.Preview),
// its plan printed with opts (none under --json: the caller writes the
// document) and recorded as cmd's preview. A value a planned command can't
// carry is a warning: the wetrun refuses it.
func (a *app) preview(ctx context.Context, config string, cmd state.Command, opts render.PlanOptions) (*session, *pass.Detection, *pass.Planned, error) {
	s, err := a.open(config, true)
	if err != nil {
		return nil, nil, nil, err
	}
	ev, det, pl, err := s.Preview(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	a.warnBadValues(pass.BadValues(pl.Plan, s.Res))
	a.warnBadURLs(pass.BadURLs(ev.Decl, s.Res))
	if a.json == nil {
		opts.Diffs = render.ContentDiffs(det.Obs)
		opts.Unbindable, opts.Unrecorded = s.Conn.Masked, s.Conn.MaskedHost
		for _, h := range pass.TargetHolds(ev.Decl, s.Res) {
			opts.TargetHints = append(opts.TargetHints, fmt.Sprintf("%s: %s hold without it", h.Hint(), strings.Join(h.IDs, ", ")))
		}
		if render.Lock(a.stdout, s.lockView(false)) {
			fmt.Fprintln(a.stdout)
		}
		render.Plan(a.stdout, pl.Plan, opts)
		render.Orphans(a.stdout, s.Orphans, s.Elsewhere)
	}
	if err := s.RecordPass(cmd, true, pl.Plan.Hash, ev, det); err != nil {
		return nil, nil, nil, err
	}
	if a.host != nil {
		a.host.setPlan(pl.Plan)
	}
	return s, det, pl, nil
}

// planDoc writes the plan as plan --json and a dry apply --json do, and
// exits code.
func (a *app) planDoc(s *session, det *pass.Detection, pl *pass.Planned, code int) error {
	doc := &cliout.Plan{Format: cliout.PlanFormat, Command: a.json.command, Exit: code,
		PlanHash: pl.Plan.Hash, Plan: pl.JSON, Lock: lockDoc(s.lockView(false)),
		Unbindable: s.Conn.Masked, Unrecorded: s.Conn.Unrecorded(), Orphans: s.Orphans}
	diffs := render.ContentDiffs(det.Obs)
	for _, c := range pl.Plan.Changes {
		if d := diffs[c.ID]; d != "" {
			doc.Diffs = append(doc.Diffs, cliout.ContentDiff{ID: c.ID, Diff: d})
		}
	}
	for _, h := range pl.Plan.Held {
		doc.Held = append(doc.Held, h.ID)
	}
	if h := render.SudoHintText(pl.Plan.Held, pl.Plan.Context); h != "" {
		doc.HeldHints = []string{h}
	}
	if err := a.writeDoc(doc); err != nil {
		return err
	}
	return exit.Reported(code)
}

// lockView is the standing of the session's tracked pins for render;
// written says the pins it minted are in zap.lock.
func (s *session) lockView(written bool) *render.LockView {
	p := s.Pins
	return &render.LockView{Report: p.Report, Minted: p.Minted, Written: written, NoLock: s.NoLock(), Tracked: p.Tracked}
}
