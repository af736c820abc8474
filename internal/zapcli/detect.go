package zapcli

import (
	"context"
	"fmt"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/zap-go/zap/internal/pass"
	"github.com/zap-go/zap/internal/render"
	"github.com/zap-go/zap/internal/state"
)

// detectCommand is zap detect [CONFIG].
func (a *app) detectCommand(f *flagSets) *ffcli.Command {
	return &ffcli.Command{
		Name:       "detect",
		ShortUsage: "zap detect [--no-lock] [CONFIG]",
		ShortHelp:  "detection alone: one line per resource with its verdict",
		LongHelp: `The detection half of plan, rendered raw: one line per resource with its
mark (ok, drift, absent, or ? when it couldn't be read), its id and kind; a
drift adds what was observed, a ? the reason. A resource whose pin is
tracked in zap.lock and isn't current there is a ?, under the LOCK banner.

Exit status: 0 every resource was read; 1 a resource couldn't be read or a
referenced variable is unset; 2 an input error.`,
		FlagSet: f.lockFlag(f.target("zap detect")),
		Exec:    onConfig(a.cmdDetect),
	}
}

// cmdDetect is zap detect: detection rendered raw.
func (a *app) cmdDetect(ctx context.Context, config string) error {
	s, ev, _, err := a.start(ctx, config, (*pass.Session).CheckConnectable)
	if err != nil {
		return err
	}
	det, err := s.Observe(ctx, ev, false, false)
	if err != nil {
		return err
	}
	if render.Lock(a.stdout, s.lockView(false)) {
		fmt.Fprintln(a.stdout)
	}
	render.Detect(a.stdout, det.Obs)
	if s.Conn.Unrecorded() {
		fmt.Fprintln(a.stdout)
		render.Unrecorded(a.stdout, s.Conn.MaskedHost)
	}
	if err := s.RecordPass(state.CmdDetect, false, "", ev, det); err != nil {
		return err
	}
	return exit(pass.VerdictCode(det.Obs))
}
