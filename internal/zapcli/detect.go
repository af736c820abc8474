package zapcli

import (
	"context"
	"fmt"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/pass"
	"github.com/zap-go/zap/internal/render"
	"github.com/zap-go/zap/internal/state"
	"github.com/zap-go/zap/pkg/cliout"
)

// detectCommand is zap detect [CONFIG].
func (a *app) detectCommand(f *flagSets) *ffcli.Command {
	fs := f.lockFlag(f.target("zap detect"))
	f.jsonFlag(fs, "write the observations and each resource's verdict as one JSON document on stdout ("+cliout.DetectFormat+", docs/protocol.md), an error included", jsonMode{format: cliout.DetectFormat, command: "detect"})
	return &ffcli.Command{
		Name:       "detect",
		ShortUsage: "zap detect [--json] [--no-lock] [CONFIG]",
		ShortHelp:  "detection alone: one line per resource with its verdict",
		LongHelp: `The detection half of plan, rendered raw: one line per resource with its
mark (ok, drift, absent, or ? when it couldn't be read), its id and kind; a
drift adds what was observed, a ? the reason. A resource whose pin is
tracked in zap.lock and isn't current there is a ?, under the LOCK banner.
A remote account without passwordless sudo gets a hint with the sudoers
line it needs (under --json, the document's held_hints).

--json writes the observations, each resource's verdict and the lock's
standing as one JSON document on stdout instead, and an error as that
document's error; the exit status is the same.

Exit status: 0 every resource was read; 1 a resource couldn't be read or a
referenced variable is unset; 2 an input error.`,
		FlagSet: fs,
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
	if a.json == nil {
		if render.Lock(a.stdout, s.lockView(false)) {
			fmt.Fprintln(a.stdout)
		}
		render.Detect(a.stdout, det.Obs)
		if s.Conn.Unrecorded() {
			fmt.Fprintln(a.stdout)
			render.Unrecorded(a.stdout, s.Conn.MaskedHost)
		}
	}
	if err := s.RecordPass(state.CmdDetect, false, "", ev, det); err != nil {
		return err
	}
	code := pass.VerdictCode(det.Obs)
	if a.json != nil {
		doc := &cliout.Detect{Format: cliout.DetectFormat, Exit: code, Observations: det.JSON,
			Resources: verdictsOf(det.Obs), Lock: lockDoc(s.lockView(false)), Unrecorded: s.Conn.Unrecorded()}
		if h := render.DetectSudoHintText(det.Obs); h != "" {
			doc.HeldHints = []string{h}
		}
		if err := a.writeDoc(doc); err != nil {
			return err
		}
	}
	return exit.Reported(code)
}
