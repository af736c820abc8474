package zapcli

import (
	"context"
	"fmt"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/zap-go/zap/internal/escape"
	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/pass"
)

// configCommand is zap config, whose one command is validate.
func (a *app) configCommand(f *flagSets) *ffcli.Command {
	validate := &ffcli.Command{
		Name:       "validate",
		ShortUsage: "zap config validate [CONFIG]",
		ShortHelp:  "evaluate the config and run its gates, nothing else",
		LongHelp: `Evaluates the config and runs the two machine-free gates (a hardcoded
secret, a structural error). Prints ok: N resource(s) and exits 0, or the
error and exits 2. No target is read.

It also warns of resources that will hold whatever the target holds,
naming the field to add: a path under ~ on a remote target that declares
no home, a package with no check on a target that declares no
package_manager, or one whose from has no entry for the target's
package_manager. A wetrun refuses such a config before anything runs.`,
		FlagSet: f.eval("zap config validate"),
		Exec:    onConfig(a.cmdValidate),
	}
	return &ffcli.Command{
		Name:        "config",
		ShortUsage:  "zap config validate [CONFIG]",
		ShortHelp:   "work with the config without a target",
		FlagSet:     f.plain("zap config"),
		Subcommands: []*ffcli.Command{validate},
		Exec: func(ctx context.Context, args []string) error {
			if len(args) > 0 {
				return unknownCommand("zap config", args[0], []*ffcli.Command{validate})
			}
			return exit.Fail(2, "zap config needs a command", "zap config validate [CONFIG]")
		},
	}
}

// cmdValidate is zap config validate: evaluation and its gates only.
func (a *app) cmdValidate(ctx context.Context, config string) error {
	s, ev, err := a.load(ctx, config)
	if err != nil {
		return err
	}
	for _, h := range pass.TargetHolds(ev.Decl, s.Res) {
		fmt.Fprintf(a.stderr, "warning: %s\nhint: %s\n", escape.Line(h.Problem()), escape.Line(h.Hint()))
	}
	fmt.Fprintf(a.stdout, "ok: %d resource(s)\n", len(ev.Decl.Resources))
	return nil
}
