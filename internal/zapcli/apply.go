package zapcli

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/pass"
	"github.com/zap-go/zap/internal/render"
	"github.com/zap-go/zap/internal/state"
	"github.com/zap-go/zap/pkg/cliout"
	"github.com/zap-go/zap/pkg/events"
)

// applyCommand is zap apply [--wetrun] [--expect-plan HASH] [--diff] [--json] [CONFIG].
func (a *app) applyCommand(f *flagSets) *ffcli.Command {
	fs := f.jobsFlag(f.lockFlag(f.target("zap apply")))
	wetrun := fs.Bool("wetrun", false, "change the target: execute the plan you reviewed (without it, apply only previews)")
	skipChanged := fs.Bool("skip-changed", false, "with --wetrun over several hosts, run the hosts bound to what was reviewed even when another host's plan changed (that one is refused)")
	expect := fs.String("expect-plan", "", "execute only if the plan's plan_hash is exactly `HASH`, all 64 hex characters (with --wetrun)")
	diff := fs.Bool("diff", false, "show each drifted resource's current → desired lines and each file's content diff: in the preview, or with --wetrun in the review it asks for")
	f.jsonFlag(fs, "with --wetrun, stream the run's events as JSON lines on stdout ("+events.Format+"); without, write the plan document plan --json writes ("+cliout.PlanFormat+")",
		jsonMode{format: cliout.PlanFormat, command: "apply", stream: func() bool { return *wetrun }})
	return &ffcli.Command{
		Name:       "apply",
		ShortUsage: "zap apply [--wetrun] [--expect-plan HASH] [--diff] [--json] [--no-lock] [-j N] [CONFIG...]",
		ShortHelp:  "preview the changes; with --wetrun, make them",
		LongHelp: `Without --wetrun: the same pass as plan, rendered as what apply would do,
recorded as the preview. Exit status: 0 no changes, 2 changes pending, 1 a
resource couldn't be read or a referenced variable is unset.

With --wetrun: detects and plans again, and executes only the plan you
reviewed: the one --expect-plan names, or the last preview on this host. A
plan with no review is refused (exit 2, nothing changed) and becomes the
preview; on an interactive terminal zap asks for the first eight characters
of its plan_hash instead. After executing, zap reads every resource again.
Exit status: 0 every change ok and converged; 1 a change failed, a resource
still isn't converged (RESIDUAL), one couldn't be read, or the reading again
failed; 2 refused or an input error. While it runs, stderr shows the change
under way: on a terminal one line, redrawn with the step's elapsed time;
otherwise a "started" line per change. Colour only on a terminal (TERM set,
not dumb), never with NO_COLOR, --no-color or --json.

A resource whose pin is tracked in zap.lock and has no entry there has it
minted: its content is fetched and the pin is what was served. A dry run
shows it as resolved, not written; a wetrun writes it to zap.lock before it
executes. A stale or unverifiable entry is refused (exit 2, nothing read or
changed): run zap update for it. --no-lock reads, fetches and writes no
tracked pin: those resources hold.

--diff, as zap plan's: each drifted resource's current → desired lines and
each file's content diff, above its steps; with --wetrun, in the plan the
review at a terminal shows. Display only: the plan_hash is the same.

--json: with --wetrun, stdout carries the run's events (zap.events/1)
instead of the text report, and stderr only errors and warnings. A wetrun
that ends before its first event (a refusal, an error) leaves stdout
empty: its text report, with the plan, and its error go to stderr, and
the exit status says what happened. Without
--wetrun, the plan document zap plan --json writes, with "command": "apply"
and apply's exit status.

Several configs (paths, or one directory holding a project per host, each a
subdirectory with a zap.ts) run as several hosts: each host's own pass, at
most -j at once, its output grouped under its name, then a summary table
and the combined plan_hash (docs/cli.md, Several hosts in one command); the
exit status is the worst of the hosts'. With --wetrun, each host runs only
the plan shown for it: its last preview, or the plans whose combined
plan_hash --expect-plan names. A host whose plan changed is refused and
named, and the others run only with --skip-changed; on a terminal zap asks
once, for the first eight characters of the combined plan_hash.`,
		FlagSet: fs,
		Exec: func(ctx context.Context, args []string) error {
			a.mintPins, a.diff = true, *diff
			if err := checkExpectPlan(fs, *expect, *wetrun); err != nil {
				return err
			}
			if err := checkSkipChanged(fs, *wetrun); err != nil {
				return err
			}
			if *wetrun {
				return a.wetrunHosts(ctx, fs, args, wetrunOptions{expect: *expect, json: a.json != nil, skipChanged: *skipChanged})
			}
			return a.onConfigs(fs, func(ctx context.Context, config string) error {
				return a.cmdApply(ctx, config, *diff)
			}, func(c *app, ctx context.Context, config string) error {
				return c.cmdApply(ctx, config, *diff)
			})(ctx, args)
		},
	}
}

// checkExpectPlan holds --expect-plan (expect, as fs parsed it) to its
// rules before anything is read, for apply and deploy alike (exit 2, a
// usage error): given, it is never empty or blank, so an empty CI variable
// can't stand for no flag; it binds a wetrun, so a dry run takes none; and
// it is a whole plan_hash, since the match is exact (docs/cli.md): the
// eight characters the terminal's question asks for don't bind.
func checkExpectPlan(fs *flag.FlagSet, expect string, wetrun bool) error {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "expect-plan" })
	switch {
	case !given:
		return nil
	case strings.TrimSpace(expect) == "":
		return exit.Fail(2, "--expect-plan is empty: it takes the plan_hash of the plan you reviewed",
			"an empty value is no review: set the variable that holds the hash, or leave the flag out")
	case !wetrun:
		return exit.Fail(2, "--expect-plan binds a wetrun to a reviewed plan; a dry run takes no --expect-plan", "add --wetrun to execute the plan it names")
	case len(expect) == 64 && strings.Trim(expect, "0123456789abcdef") == "":
		return nil
	case strings.Trim(expect, "0123456789abcdef") == "":
		return exit.Fail(2, fmt.Sprintf("--expect-plan takes the whole plan_hash, all 64 hex characters, not %d: the match is exact", len(expect)),
			"copy the plan_hash line of the plan you reviewed; its first eight characters answer only the question a wetrun asks at a terminal")
	}
	return exit.Fail(2, "--expect-plan takes a plan_hash, 64 lowercase hex characters, and its value holds other characters",
		"copy the plan_hash line of the plan you reviewed")
}

// cmdApply is a dry zap apply: it judges, so pending changes exit 2, and a
// pass that couldn't establish a verdict exits 1, which outranks them.
func (a *app) cmdApply(ctx context.Context, config string, diff bool) error {
	s, det, pl, err := a.preview(ctx, config, state.CmdApply, render.PlanOptions{Mode: render.ModeApply, Diff: diff})
	if err != nil {
		return err
	}
	code := pass.VerdictCode(det.Obs)
	if code == 0 && len(pl.Plan.Changes) > 0 {
		code = 2
	}
	if a.json != nil {
		return a.planDoc(s, det, pl, code)
	}
	return exit.Reported(code)
}
