package zapcli

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/stage"
	"github.com/zap-go/zap/internal/suggest"
)

// unknownCommand is the usage error for name, which parent (its flag set's
// name) has no command of: with the command it is likely a typo of.
func unknownCommand(parent, name string, commands []*ffcli.Command) error {
	var names []string
	for _, c := range commands {
		names = append(names, c.Name)
	}
	hints := []string{parent + " --help lists the commands"}
	if near, ok := suggest.Closest(name, names); ok {
		hints = append([]string{fmt.Sprintf("did you mean %s %s?", parent, near)}, hints...)
	}
	prefix := ""
	if parent != "zap" {
		prefix = parent + ": "
	}
	return exit.Fail(2, fmt.Sprintf("%sunknown command %q", prefix, name), hints...)
}

// flagError is the usage error for err, root.Parse's refusal of args: the
// flag named as the command that refused it spells it (stage.FlagError),
// with the flag it is likely a typo of, or the other commands that have it.
func flagError(root *ffcli.Command, args []string, err error) error {
	if inner := errors.Unwrap(err); inner != nil {
		// ff's "error parsing commandline arguments: " adds nothing.
		err = inner
	}
	cmd := selected(root, args)
	name := cmd.FlagSet.Name()
	msg, hints := stage.FlagError(err, cmd.FlagSet, args)
	if typed, ok := strings.CutPrefix(msg, "unknown flag "); ok {
		typed = strings.TrimLeft(typed, "-")
		if len(typed) == 1 {
			// Every letter is one edit from every other: a one-letter
			// flag (-j) is no likelier a typo of -v than of anything.
			hints = slices.DeleteFunc(hints, func(h string) bool {
				near, ok := strings.CutPrefix(h, "did you mean --")
				return ok && len(strings.TrimSuffix(near, "?")) == 1
			})
		}
		hints = unknownFlagHints(root, cmd, typed, hints)
	}
	if name == "zap" {
		return exit.Fail(2, msg, append(hints, "zap <command> --help prints the command's flags")...)
	}
	return exit.Fail(2, name+": "+msg, append(hints, name+" --help lists its flags")...)
}

// otherTools is what the flags other tools take for a dry run or for
// approving changes mean in Zap: dry is a dry run, approve answering yes.
var otherTools = map[string]string{
	"dry-run": "dry", "dryrun": "dry", "dry": "dry", "noop": "dry", "what-if": "dry", "whatif": "dry",
	"yes": "approve", "y": "approve", "auto-approve": "approve", "assume-yes": "approve", "approve": "approve",
	"non-interactive": "approve", "noninteractive": "approve",
}

// unknownFlagHints are the hints for name, a flag cmd doesn't have, when
// the flag package's did-you-mean (hints) found none: what Zap does
// instead of another tool's flag, the one flag of cmd name starts (--wet
// for --wetrun), or the other commands that have it.
func unknownFlagHints(root, cmd *ffcli.Command, name string, hints []string) []string {
	if len(hints) > 0 {
		return hints
	}
	wet := cmd.FlagSet.Lookup("wetrun") != nil
	self := cmd.FlagSet.Name()
	switch {
	case otherTools[name] == "dry" && wet:
		return []string{self + " is a dry run already: without --wetrun it only previews and changes nothing"}
	case otherTools[name] == "dry":
		return []string{self + " changes nothing; only zap apply --wetrun and zap deploy --wetrun change the target"}
	case otherTools[name] == "approve" && wet:
		return []string{"no flag answers yes: " + self + " --wetrun executes the plan you previewed; --expect-plan HASH binds it to a reviewed plan_hash"}
	case otherTools[name] == "approve":
		return []string{self + " asks nothing; zap apply --wetrun executes the plan you previewed, and --expect-plan HASH binds it to a reviewed plan_hash"}
	}
	if len(name) >= 2 {
		var starts []string
		cmd.FlagSet.VisitAll(func(f *flag.Flag) {
			if strings.HasPrefix(f.Name, name) {
				starts = append(starts, f.Name)
			}
		})
		if len(starts) == 1 {
			return []string{"did you mean " + flagName(starts[0]) + "?"}
		}
	}
	var others []string
	walk(root, func(c *ffcli.Command) {
		if c != cmd && c.Exec != nil && c.FlagSet.Lookup(name) != nil {
			others = append(others, c.FlagSet.Name())
		}
	})
	if len(others) > 0 {
		hints = append(hints, fmt.Sprintf("%s is a flag of %s", flagName(name), strings.Join(others, ", ")))
	}
	return hints
}

// selected is the command args name: the subcommands named by the leading
// arguments that aren't flags, as ffcli picks them.
func selected(root *ffcli.Command, args []string) *ffcli.Command {
	cmd := root
	for _, arg := range args {
		if strings.HasPrefix(arg, "-") {
			continue
		}
		next := (*ffcli.Command)(nil)
		for _, c := range cmd.Subcommands {
			if c.Name == arg {
				next = c
			}
		}
		if next == nil {
			break
		}
		cmd = next
	}
	return cmd
}

// walk calls fn on c and every command under it.
func walk(c *ffcli.Command, fn func(*ffcli.Command)) {
	fn(c)
	for _, s := range c.Subcommands {
		walk(s, fn)
	}
}
