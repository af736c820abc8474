package zapcli

import (
	"context"
	"fmt"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/version"
)

// versionCommand is zap version.
func (a *app) versionCommand(f *flagSets) *ffcli.Command {
	return &ffcli.Command{
		Name:       "version",
		ShortUsage: "zap version",
		ShortHelp:  "print zap's version",
		FlagSet:    f.plain("zap version"),
		Exec: func(ctx context.Context, args []string) error {
			if len(args) > 0 {
				return exit.Fail(2, fmt.Sprintf("zap version takes no arguments, not %q", args[0]))
			}
			fmt.Fprintf(a.stdout, "zap %s\n", version.String())
			return nil
		},
	}
}
