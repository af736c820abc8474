package zapcli

import (
	"context"

	"github.com/zap-go/zap/internal/exit"
)

// wetrunHosts is zap apply --wetrun on one config, or on several
// (hostConfigs).
func (a *app) wetrunHosts(ctx context.Context, args []string, o wetrunOptions) error {
	hosts, err := hostConfigs(args)
	if err != nil {
		return err
	}
	if hosts == nil {
		return onConfig(func(ctx context.Context, config string) error {
			return a.cmdWetrun(ctx, config, o)
		})(ctx, args)
	}
	return exit.Fail(2, "zap apply --wetrun runs one config at a time: several are for zap plan, a dry zap apply and zap status",
		"run zap apply --wetrun on each host's config")
}
