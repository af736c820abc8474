package zapcli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/zap-go/zap/internal/escape"
	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/version"
)

// loop is what zap alone prints.
const loop = `zap makes a machine look like what zap.ts describes, in one loop:

  describe  you write the machine you want in zap.ts
  detect    zap reads what the machine looks like now
  plan      the difference, as a plan you can review, named by its plan_hash
  apply     zap apply previews; zap apply --wetrun executes the reviewed plan
  observe   zap reads the machine again and reports anything not converged

Nothing changes without --wetrun.
`

// run parses args into one of the commands, each in a file of its own
// (init.go, lock.go, update.go, validate.go, plan.go, apply.go, detect.go,
// status.go, graph.go, types.go, doc.go, completion.go, version.go), and
// runs it.
func (a *app) run(ctx context.Context, args []string) error {
	f := &flagSets{a: a}
	commands := a.commands(f)
	rootFlags := f.plain("zap")
	showVersion := rootFlags.Bool("version", false, "print zap's version, as zap version does")
	root := &ffcli.Command{
		Name:        "zap",
		ShortUsage:  "zap <command> [flags] [CONFIG]",
		LongHelp:    strings.TrimSuffix(loop, "\n") + "\n\nCONFIG defaults to ./zap.ts; a directory stands for the zap.ts in it.",
		FlagSet:     rootFlags,
		Subcommands: commands,
		Exec: func(ctx context.Context, args []string) error {
			switch {
			case *showVersion:
				fmt.Fprintf(a.stdout, "zap %s\n", version.String())
				return nil
			case len(args) == 2 && args[0] == "help" && args[1] == "environment":
				a.json = nil
				fmt.Fprint(a.stdout, environmentHelp())
				return nil
			case len(args) > 0 && args[0] == "help":
				// zap help [COMMAND...] is zap [COMMAND...] --help.
				return a.run(ctx, append(args[1:len(args):len(args)], "--help"))
			case len(args) > 0:
				return unknownCommand("zap", args[0], commands)
			}
			fmt.Fprint(a.stdout, loop)
			fmt.Fprintln(a.stdout)
			fmt.Fprint(a.stdout, commandList(commands))
			fmt.Fprintln(a.stdout, "\nRun zap <command> --help for its flags. CONFIG defaults to ./zap.ts;\na directory stands for the zap.ts in it.")
			return nil
		},
	}
	setUsage(root)

	if err := root.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			a.json = nil // --help is text, --json or not
			_, werr := a.stdout.Write(f.usage.Bytes())
			return werr
		}
		// A flag error is coloured as any other error (an unknown command).
		a.useColour(root)
		return flagError(root, args, err)
	}
	a.useColour(root)
	return root.Run(ctx)
}

// commands are zap's commands, in the order zap lists them; zap
// completion reads its scripts off this tree.
func (a *app) commands(f *flagSets) []*ffcli.Command {
	return []*ffcli.Command{
		a.initCommand(f),
		a.lockCommand(f),
		a.updateCommand(f),
		a.planCommand(f),
		a.applyCommand(f),
		a.deployCommand(f),
		a.detectCommand(f),
		a.statusCommand(f),
		a.graphCommand(f),
		a.configCommand(f),
		a.typesCommand(f),
		a.docCommand(f),
		a.completionCommand(f),
		a.versionCommand(f),
	}
}

// flagSets makes each command's flag set: its own, with the flags it shares
// with other commands defined here once. Every set writes its usage to one
// buffer, which --help prints.
type flagSets struct {
	a     *app
	usage bytes.Buffer
}

// plain is a flag set with only the flag every command shares: --no-color.
func (f *flagSets) plain(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(&f.usage)
	fs.BoolVar(&f.a.noColor, "no-color", false, "no colour, even on a terminal (as NO_COLOR does)")
	return fs
}

// eval is the flag set of a command that evaluates the config: it takes
// --evaluator and --env-file.
func (f *flagSets) eval(name string) *flag.FlagSet {
	fs := f.plain(name)
	fs.StringVar(&f.a.evaluator, "evaluator", "", "evaluate with the zap-eval binary at `PATH` (absolute; default $ZAP_EVAL, else the one beside zap)")
	fs.StringVar(&f.a.envFile, "env-file", "", "load the NAME=VALUE lines of `PATH` into the environment references resolve from (its values win over the shell's)")
	return fs
}

// target is the flag set of a command that connects to the target: it also
// takes --bootstrap.
func (f *flagSets) target(name string) *flag.FlagSet {
	fs := f.eval(name)
	fs.BoolVar(&f.a.bootstrap, "bootstrap", false, "connect as the target's bootstrap_user instead of its user (the first bring-up); a --bootstrap plan binds only a --bootstrap wetrun")
	return fs
}

// lockFlag adds --no-lock to a command that reads zap.lock's entries.
func (f *flagSets) lockFlag(fs *flag.FlagSet) *flag.FlagSet {
	fs.BoolVar(&f.a.noLock, "no-lock", false, "leave zap.lock's entries alone: read no tracked pin, fetch none, write none (each resource with a tracked pin holds)")
	return fs
}

// onConfig is a command's Exec taking the one CONFIG argument (configArg).
func onConfig(run func(ctx context.Context, config string) error) func(context.Context, []string) error {
	return func(ctx context.Context, args []string) error {
		cfg, err := configArg(args)
		if err != nil {
			return err
		}
		return run(ctx, cfg)
	}
}

// configArg is the CONFIG argument: the one positional argument, or
// ./zap.ts.
func configArg(args []string) (string, error) {
	return oneArg(args, "config", "zap.ts", func() error {
		return exit.Fail(2, fmt.Sprintf("one config at most, not %d arguments: %s", len(args), strings.Join(args, " ")),
			"flags go before the config")
	})
}

// configFile is the config a command reads for config, the CONFIG argument
// or --config: config itself, or the zap.ts in it when it names a
// directory, as zap init DIR takes one. A directory with no zap.ts, and a
// missing ./zap.ts where ../zap.ts exists, are usage errors saying so.
func configFile(config string) (string, error) {
	fi, err := os.Stat(config)
	if errors.Is(err, fs.ErrNotExist) && config == "zap.ts" {
		if _, err := os.Stat(filepath.Join("..", "zap.ts")); err == nil {
			return "", exit.Fail(2, "config zap.ts not found here, but ../zap.ts exists",
				"run zap in the project's directory (cd ..), or give the config's path: ../zap.ts")
		}
	}
	if err != nil || !fi.IsDir() {
		return config, nil
	}
	ts := filepath.Join(config, "zap.ts")
	if _, err := os.Stat(ts); err != nil {
		return "", exit.Fail(2, fmt.Sprintf("config %s is a directory, and %s doesn't exist", escape.Line(config), escape.Line(ts)),
			"give the path of the config in it, or run zap init "+escape.Line(config)+" to start a project there")
	}
	return ts, nil
}

// oneArg is a command's one positional argument, what (a config, a
// directory), or def when there is none. A flag after it is refused (exit
// 2: flags go before it), and more than one argument is tooMany's error.
func oneArg(args []string, what, def string, tooMany func() error) (string, error) {
	for _, a := range args {
		if strings.HasPrefix(a, "-") && a != "-" {
			return "", exit.Fail(2, fmt.Sprintf("flag %s after the %s: flags go before it", a, what))
		}
	}
	switch len(args) {
	case 0:
		return def, nil
	case 1:
		return args[0], nil
	}
	return "", tooMany()
}

func setUsage(c *ffcli.Command) {
	c.UsageFunc = usageText
	for _, s := range c.Subcommands {
		setUsage(s)
	}
}

// commandList is the Commands section: each command's usage, and its help
// on the line below, so a long usage never widens the page past 80 columns.
func commandList(cmds []*ffcli.Command) string {
	var b strings.Builder
	b.WriteString("Commands:\n")
	for _, c := range cmds {
		b.WriteString(wrapUsage("  ", strings.TrimPrefix(c.ShortUsage, "zap "), 80))
		b.WriteString(wrap(c.ShortHelp, "      ", 76))
	}
	return b.String()
}

// wrapUsage is prefix and usage in lines of at most width columns, broken
// only between its words and bracketed groups ([--expect-plan HASH] stays
// whole), each further line indented under the first bracketed one.
func wrapUsage(prefix, usage string, width int) string {
	var groups []string
	depth := 0
	for _, w := range strings.Fields(usage) {
		if depth > 0 {
			groups[len(groups)-1] += " " + w
		} else {
			groups = append(groups, w)
		}
		depth += strings.Count(w, "[") - strings.Count(w, "]")
	}
	// The command's own words (zap config validate) stay on the first line.
	words := 1
	for words < len(groups) && !strings.HasPrefix(groups[words], "[") {
		words++
	}
	line := prefix + strings.Join(groups[:words], " ")
	indent := strings.Repeat(" ", len([]rune(line))+1)
	var b strings.Builder
	for _, g := range groups[words:] {
		if len([]rune(line))+1+len([]rune(g)) > width {
			b.WriteString(line + "\n")
			line = indent + g
		} else {
			line += " " + g
		}
	}
	b.WriteString(line + "\n")
	return b.String()
}

// usageText is what --help prints for a command: its usage, its help, its
// subcommands and its flags.
func usageText(c *ffcli.Command) string {
	var b strings.Builder
	b.WriteString(wrapUsage("usage: ", c.ShortUsage, 80))
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
			fmt.Fprintf(&b, "  %s%s\n%s", flagName(f.Name), name, wrap(help, "      ", 76))
		})
	}
	b.WriteString(helpSections(c.FlagSet.Name()))
	return strings.TrimSuffix(b.String(), "\n")
}
