package zapcli

import (
	"context"
	"fmt"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/zap-go/zap/internal/render"
	"github.com/zap-go/zap/internal/state"
)

// detectCommand is zap detect [CONFIG].
func (a *app) detectCommand(f *flagSets) *ffcli.Command {
	return &ffcli.Command{
		Name:       "detect",
		ShortUsage: "zap detect [CONFIG]",
		ShortHelp:  "detection alone: one line per resource with its verdict",
		LongHelp: `The detection half of plan, rendered raw: one line per resource with its
mark (ok, drift, absent, or ? when it couldn't be read), its id and kind; a
drift adds what was observed, a ? the reason.

Exit status: 0 every resource was read; 1 a resource couldn't be read or a
referenced variable is unset; 2 an input error.`,
		FlagSet: f.target("zap detect"),
		Exec:    onConfig(a.cmdDetect),
	}
}

// cmdDetect is zap detect: detection rendered raw.
func (a *app) cmdDetect(ctx context.Context, config string) error {
	s, err := a.open(config, true)
	if err != nil {
		return err
	}
	ev, err := s.load(ctx)
	if err != nil {
		return err
	}
	if err := s.conn.checkConnectable(); err != nil {
		return err
	}
	if _, err := s.lastRunOf(ev.decl); err != nil {
		return err
	}
	s.warmSudo(ctx, ev.decl, false)
	det, err := s.detect(ctx, ev)
	if err != nil {
		return err
	}
	render.Detect(a.stdout, det.obs)
	if s.conn.unrecorded() {
		fmt.Fprintln(a.stdout)
		render.Unrecorded(a.stdout, s.conn.maskedHost)
	}
	if err := s.recordPass(state.CmdDetect, false, "", ev, det); err != nil {
		return err
	}
	return exit(verdictCode(det.obs))
}
