package zapcli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"
)

// loop is what zap alone prints.
const loop = `zap makes a machine look like what zap.ts describes, in one loop:

  describe  you write the machine you want in zap.ts
  detect    zap reads what the machine looks like now
  plan      the difference, as a plan you can review, named by its plan_hash
  apply     zap apply previews; zap apply --wetrun changes exactly the plan you reviewed
  observe   zap reads the machine again and reports anything still not converged

Nothing changes without --wetrun.
`

func (a *app) run(ctx context.Context, args []string) error {
	var usage bytes.Buffer
	newFlags := func(name string) *flag.FlagSet {
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		fs.SetOutput(&usage)
		return fs
	}

	// evalFlags is a flag set for a command that evaluates the config:
	// it takes --evaluator.
	evalFlags := func(name string) *flag.FlagSet {
		fs := newFlags(name)
		fs.StringVar(&a.evaluator, "evaluator", "", "evaluate with the zap-eval binary at `PATH` (absolute; default $ZAP_EVAL, else the one beside zap)")
		fs.StringVar(&a.envFile, "env-file", "", "load the NAME=VALUE lines of `PATH` into the environment references resolve from (its values win over the shell's)")
		return fs
	}

	// targetFlags is a flag set for a command that connects to the
	// target: it also takes --bootstrap.
	targetFlags := func(name string) *flag.FlagSet {
		fs := evalFlags(name)
		fs.BoolVar(&a.bootstrap, "bootstrap", false, "connect as the target's bootstrap_user instead of its user (the first bring-up); a --bootstrap plan binds only a --bootstrap wetrun")
		return fs
	}

	planFlags := targetFlags("zap plan")
	diff := planFlags.Bool("diff", false, "add each drifted resource's current → desired lines above its steps")

	applyFlags := targetFlags("zap apply")
	wetrun := applyFlags.Bool("wetrun", false, "change the target: execute the plan you reviewed (without it, apply only previews)")
	expect := applyFlags.String("expect-plan", "", "execute only if the plan's plan_hash is exactly `HASH` (with --wetrun)")
	jsonOut := applyFlags.Bool("json", false, "stream the wetrun's events as JSON lines on stdout (with --wetrun)")

	validate := &ffcli.Command{
		Name:       "validate",
		ShortUsage: "zap config validate [CONFIG]",
		ShortHelp:  "evaluate the config and run its gates, nothing else",
		LongHelp: `Evaluates the config and runs the two machine-free gates (a hardcoded
secret, a structural error). Prints ok: N resource(s) and exits 0, or the
error and exits 2. No target is read.`,
		FlagSet: evalFlags("zap config validate"),
		Exec: func(ctx context.Context, args []string) error {
			cfg, err := configArg(args)
			if err != nil {
				return err
			}
			return a.cmdValidate(ctx, cfg)
		},
	}
	commands := []*ffcli.Command{
		{
			Name:       "lock",
			ShortUsage: "zap lock [--evaluator PATH] [CONFIG]",
			ShortHelp:  "pin the zap-eval the config is evaluated with in zap.lock",
			LongHelp: `Hashes the zap-eval binary (--evaluator, else $ZAP_EVAL, else the one
beside zap), evaluates the config with it, and records its blake3 as the
toolchain pin in the config's lock (zap.ts -> zap.lock), whatever the lock
pinned before. Prints pinned zap-eval <blake3>, and (was <old>) when the pin
moved. Every other command that evaluates refuses a zap-eval off the pin.

Exit status: 0 pinned; 1 a problem in the world; 2 an input error.`,
			FlagSet: evalFlags("zap lock"),
			Exec: func(ctx context.Context, args []string) error {
				cfg, err := configArg(args)
				if err != nil {
					return err
				}
				return a.cmdLock(ctx, cfg)
			},
		},
		{
			Name:       "plan",
			ShortUsage: "zap plan [--diff] [CONFIG]",
			ShortHelp:  "detect every resource and print the plan",
			LongHelp: `Detects every declared resource live and prints the changeset: one [+]
(create) or [~] (update) line per resource, what it declares and its steps
under it, and the plan_hash at the end. The pass is recorded as a preview, so
a following zap apply --wetrun binds to it.

Exit status: 0 the plan was printed (changes pending or not); 1 a resource
couldn't be read or a referenced variable is unset; 2 an input error.`,
			FlagSet: planFlags,
			Exec: func(ctx context.Context, args []string) error {
				cfg, err := configArg(args)
				if err != nil {
					return err
				}
				return a.cmdPlan(ctx, cfg, *diff)
			},
		},
		{
			Name:       "apply",
			ShortUsage: "zap apply [--wetrun] [--expect-plan HASH] [--json] [CONFIG]",
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
failed; 2 refused or an input error.`,
			FlagSet: applyFlags,
			Exec: func(ctx context.Context, args []string) error {
				cfg, err := configArg(args)
				if err != nil {
					return err
				}
				switch {
				case *expect != "" && !*wetrun:
					return fail(2, "--expect-plan binds a wetrun to a reviewed plan; a dry run takes no --expect-plan", "add --wetrun to execute the plan it names")
				case *jsonOut && !*wetrun:
					return fail(2, "--json streams a wetrun's events; a dry run has none", "add --wetrun, or leave out --json for the text preview")
				case *wetrun:
					return a.cmdWetrun(ctx, cfg, wetrunOptions{expect: *expect, json: *jsonOut})
				}
				return a.cmdApply(ctx, cfg)
			},
		},
		{
			Name:       "detect",
			ShortUsage: "zap detect [CONFIG]",
			ShortHelp:  "detection alone: one line per resource with its verdict",
			LongHelp: `The detection half of plan, rendered raw: one line per resource with its
mark (ok, drift, absent, or ? when it couldn't be read), its id and kind; a
drift adds what was observed, a ? the reason.

Exit status: 0 every resource was read; 1 a resource couldn't be read or a
referenced variable is unset; 2 an input error.`,
			FlagSet: targetFlags("zap detect"),
			Exec: func(ctx context.Context, args []string) error {
				cfg, err := configArg(args)
				if err != nil {
					return err
				}
				return a.cmdDetect(ctx, cfg)
			},
		},
		{
			Name:       "status",
			ShortUsage: "zap status [CONFIG]",
			ShortHelp:  "what the last run saw, offline",
			LongHelp: `Evaluates the config and reads the last-run report for its target; never
touches the target. Each resource's verdict in that run, noting a resource
whose config changed since and one the last run didn't read; resources in
the report no longer declared are listed as orphaned. A preview's plan_hash
is the plan zap apply --wetrun binds to.

Exit status: 0 the last run read every declared resource; 1 there is no
last run (unless nothing is declared), or the last run held a resource, was
unverifiable, or didn't read a declared resource; 2 an input error.`,
			FlagSet: evalFlags("zap status"),
			Exec: func(ctx context.Context, args []string) error {
				cfg, err := configArg(args)
				if err != nil {
					return err
				}
				return a.cmdStatus(ctx, cfg)
			},
		},
		{
			Name:        "config",
			ShortUsage:  "zap config validate [CONFIG]",
			ShortHelp:   "work with the config without a target",
			FlagSet:     newFlags("zap config"),
			Subcommands: []*ffcli.Command{validate},
			Exec: func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return fail(2, fmt.Sprintf("zap config: unknown command %q", args[0]), "zap config --help lists its commands")
				}
				return fail(2, "zap config needs a command", "zap config validate [CONFIG]")
			},
		},
		{
			Name:       "version",
			ShortUsage: "zap version",
			ShortHelp:  "print zap's version",
			FlagSet:    newFlags("zap version"),
			Exec: func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return fail(2, fmt.Sprintf("zap version takes no arguments, not %q", args[0]))
				}
				fmt.Fprintf(a.stdout, "zap %s\n", version())
				return nil
			},
		},
	}
	root := &ffcli.Command{
		Name:        "zap",
		ShortUsage:  "zap <command> [flags] [CONFIG]",
		LongHelp:    strings.TrimSuffix(loop, "\n") + "\n\nCONFIG defaults to ./zap.ts.",
		FlagSet:     newFlags("zap"),
		Subcommands: commands,
		Exec: func(ctx context.Context, args []string) error {
			if len(args) > 0 {
				return fail(2, fmt.Sprintf("unknown command %q", args[0]), "zap --help lists the commands")
			}
			fmt.Fprint(a.stdout, loop)
			fmt.Fprintln(a.stdout)
			fmt.Fprint(a.stdout, commandList(commands))
			fmt.Fprintln(a.stdout, "\nRun zap <command> --help for its flags. CONFIG defaults to ./zap.ts.")
			return nil
		},
	}
	setUsage(root)

	if err := root.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			_, werr := a.stdout.Write(usage.Bytes())
			return werr
		}
		msg := strings.TrimPrefix(err.Error(), "error parsing commandline arguments: ")
		return fail(2, msg, "zap <command> --help prints the command's flags")
	}
	return root.Run(ctx)
}

// configArg is the CONFIG argument: the one positional argument, or
// ./zap.ts.
func configArg(args []string) (string, error) {
	for _, a := range args {
		if strings.HasPrefix(a, "-") && a != "-" {
			return "", fail(2, fmt.Sprintf("flag %s after the config: flags go before it", a))
		}
	}
	switch len(args) {
	case 0:
		return "zap.ts", nil
	case 1:
		return args[0], nil
	}
	return "", fail(2, fmt.Sprintf("one config at most, not %d arguments: %s", len(args), strings.Join(args, " ")),
		"flags go before the config")
}

func setUsage(c *ffcli.Command) {
	c.UsageFunc = usageText
	for _, s := range c.Subcommands {
		setUsage(s)
	}
}

func commandList(cmds []*ffcli.Command) string {
	var b strings.Builder
	b.WriteString("Commands:\n")
	width := 0
	for _, c := range cmds {
		width = max(width, len(strings.TrimPrefix(c.ShortUsage, "zap ")))
	}
	for _, c := range cmds {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, strings.TrimPrefix(c.ShortUsage, "zap "), c.ShortHelp)
	}
	return b.String()
}

// usageText is what --help prints for a command: its usage, its help, its
// subcommands and its flags.
func usageText(c *ffcli.Command) string {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: %s\n", c.ShortUsage)
	if c.LongHelp != "" {
		fmt.Fprintf(&b, "\n%s\n", c.LongHelp)
	} else if c.ShortHelp != "" {
		fmt.Fprintf(&b, "\n%s\n", c.ShortHelp)
	}
	if len(c.Subcommands) > 0 {
		b.WriteString("\n")
		b.WriteString(commandList(c.Subcommands))
	}
	n := 0
	c.FlagSet.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		b.WriteString("\nFlags:\n")
		c.FlagSet.VisitAll(func(f *flag.Flag) {
			name, help := flag.UnquoteUsage(f)
			if name != "" {
				name = " " + name
			}
			fmt.Fprintf(&b, "  --%s%s\n      %s\n", f.Name, name, help)
		})
	}
	return strings.TrimSuffix(b.String(), "\n")
}
