package zapcli

import (
	"context"
	"fmt"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/zap-go/zap/internal/escape"
	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/lock"
	"github.com/zap-go/zap/internal/lockhash"
	"github.com/zap-go/zap/internal/pass"
	"github.com/zap-go/zap/internal/render"
)

// updateCommand is zap update [--config PATH] [ID...].
func (a *app) updateCommand(f *flagSets) *ffcli.Command {
	fs := f.eval("zap update")
	config := fs.String("config", "zap.ts", "the config, at `PATH` (the arguments are ids)")
	return &ffcli.Command{
		Name:       "update",
		ShortUsage: "zap update [--config PATH] [ID...]",
		ShortHelp:  "fetch tracked sources again and advance their pins in zap.lock",
		LongHelp: `Fetches the content of the named resources again, or of every resource
whose pin is tracked in zap.lock (a remote file, build source or apt key with
no blake3 in the config), and rewrites each entry whose pin advanced or whose
config_hash is stale. Each entry is written as it is minted, so a later
failure keeps the earlier ones. The config is --config PATH, since the
arguments are ids. The toolchain pin is read, never moved: that is zap
lock's. A URL that references an unset or empty variable is not fetched, and
its entry fails. A note: line names each reference the lock addresses by
name only, because its name or the form of its value reads as a secret.
Review the lock's diff before committing it.

Exit status: 0 every entry updated or already current, or none tracked (it
says there is nothing to update); 1 an entry failed in the world (a fetch,
a write); 2 none did, but one failed on an input to fix (an unset
reference, a URL Zap refuses, a signature that doesn't verify, an id with
no tracked pin), or an input error.`,
		FlagSet: fs,
		Exec: func(ctx context.Context, ids []string) error {
			for _, id := range ids {
				if strings.HasPrefix(id, "-") && id != "-" {
					return exit.Fail(2, fmt.Sprintf("flag %s after the ids: flags go before them", id))
				}
			}
			return a.cmdUpdate(ctx, *config, ids)
		},
	}
}

// cmdUpdate is zap update: mint each named tracked pin (or every one) anew,
// writing each as it is minted, and exit by the worst failure.
func (a *app) cmdUpdate(ctx context.Context, config string, ids []string) error {
	s, ev, err := a.load(ctx, config)
	if err != nil {
		return err
	}
	rep, err := s.Standing(ev)
	if err != nil {
		return err
	}
	targets, err := updateTargets(rep, ids)
	if err != nil {
		return err
	}
	if len(targets) == 0 {
		// Nothing tracked: say so, rather than print nothing.
		fmt.Fprintf(a.stdout, "nothing to update: no resource in %s has a tracked pin (a remote file, build source or apt key with no blake3 in the config)\n", escape.Line(config))
		render.LockNotes(a.stdout, rep.Notes)
		return nil
	}
	m, err := s.NewMinter(ev)
	if err != nil {
		return err
	}
	defer m.Close()
	// A failure in the world (1) outranks one on an input to fix (2).
	operational, input := false, false
	for _, st := range targets {
		e, err := m.Mint(ctx, pass.ResourceOf(ev.Decl, st.ID))
		if err == nil && (st.Entry == nil || *st.Entry != e) {
			err = s.WriteEntries([]lock.Entry{e})
		}
		if err == nil {
			printPinned(a.stdout, e, st.Entry)
			continue
		}
		code, msg, hints := errorOf(err)
		if code == 2 {
			input = true
		} else {
			operational = true
		}
		render.Error(a.stderr, msg, hints...)
	}
	render.LockNotes(a.stdout, rep.Notes)
	switch {
	case operational:
		return exit.Reported(1)
	case input:
		return exit.Reported(2)
	}
	return nil
}

// updateTargets are the standings of the tracked pins ids name, in the
// order given, or of every tracked pin when none is named. An id that isn't
// a resource with a tracked pin is an input error.
func updateTargets(rep *lockhash.Report, ids []string) ([]lockhash.Standing, error) {
	if len(ids) == 0 {
		return rep.Tracked, nil
	}
	var out []lockhash.Standing
	var unknown []string
	for _, id := range ids {
		if st := rep.Of(id); st != nil {
			out = append(out, *st)
		} else {
			unknown = append(unknown, escape.Line(id))
		}
	}
	if len(unknown) > 0 {
		return nil, exit.Fail(2, fmt.Sprintf("no resource with a tracked pin has the id %s", strings.Join(unknown, ", ")),
			"zap update takes the ids of resources that fetch content with no blake3 in the config; zap lock --check lists them")
	}
	return out, nil
}
