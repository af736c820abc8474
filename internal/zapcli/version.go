package zapcli

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/peterbourgon/ff/v3/ffcli"
)

// Version is zap's version, set at build time with
// -ldflags "-X github.com/zap-go/zap/internal/zapcli.Version=v1.2.3".
var Version = ""

// version is Version, or the module version the build recorded.
func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// versionCommand is zap version.
func (a *app) versionCommand(f *flagSets) *ffcli.Command {
	return &ffcli.Command{
		Name:       "version",
		ShortUsage: "zap version",
		ShortHelp:  "print zap's version",
		FlagSet:    f.plain("zap version"),
		Exec: func(ctx context.Context, args []string) error {
			if len(args) > 0 {
				return fail(2, fmt.Sprintf("zap version takes no arguments, not %q", args[0]))
			}
			fmt.Fprintf(a.stdout, "zap %s\n", version())
			return nil
		},
	}
}
