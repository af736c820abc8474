package zapcli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/zap-go/zap/internal/escape"
	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/lock"
	"github.com/zap-go/zap/internal/lockhash"
	"github.com/zap-go/zap/internal/pass"
	"github.com/zap-go/zap/internal/render"
)

// lockCommand is zap lock [--check] [--evaluator PATH] [CONFIG].
func (a *app) lockCommand(f *flagSets) *ffcli.Command {
	fs := f.eval("zap lock")
	check := fs.Bool("check", false, "check zap.lock without writing it: the toolchain pin, then each tracked pin's standing, offline (exit 1 on any finding)")
	return &ffcli.Command{
		Name:       "lock",
		ShortUsage: "zap lock [--check] [--evaluator PATH] [CONFIG]",
		ShortHelp:  "pin the zap-eval and every tracked source in zap.lock; --check verifies it",
		LongHelp: `Hashes the zap-eval binary (--evaluator, else $ZAP_EVAL, else the one
beside zap), evaluates the config with it, and records its blake3 as the
toolchain pin in the config's lock (zap.ts -> zap.lock), whatever the lock
pinned before. Prints pinned zap-eval <blake3>, and (was <old>) when the pin
moved. Every other command that evaluates refuses a zap-eval off the pin.

It then fetches every tracked source again (a remote file, build source or
apt key with no blake3 in the config), mints each entry anew (its blake3 and
config_hash), and drops every entry no resource tracks. All or nothing: a
fetch that fails leaves zap.lock as it was. Review the lock's diff before
committing it.

With --check it writes nothing and fetches nothing: a zap-eval off the
toolchain pin is reported as a stale toolchain pin, and nothing else is
checked; otherwise each tracked pin is classified as current, missing,
stale, unverifiable or orphaned. A note: line names each reference the lock
addresses by name only, because its name or the form of its value reads as
a secret.

Exit status: 0 pinned (--check: everything current); 1 a problem in the
world (--check: any finding); 2 an input error.`,
		FlagSet: fs,
		Exec: onConfig(func(ctx context.Context, config string) error {
			if *check {
				return a.cmdLockCheck(ctx, config)
			}
			return a.cmdLock(ctx, config)
		}),
	}
}

// cmdLock is zap lock: hash the evaluator, evaluate the config with it,
// record its blake3 as the toolchain pin, whatever the lock pinned before,
// and mint every tracked pin anew, all or nothing.
func (a *app) cmdLock(ctx context.Context, config string) error {
	s, err := a.open(config, false)
	if err != nil {
		return err
	}
	l, err := s.ReadLock()
	if err != nil {
		return err
	}
	bin, err := s.OpenEvaluator()
	if err != nil {
		return err
	}
	defer bin.Close()
	ev, err := s.RunEvaluator(ctx, bin)
	if err != nil {
		return err
	}
	s.Adopt(ev)
	if l == nil {
		l = &lock.Lock{}
	}
	old := *l
	entries, notes, err := mintAll(ctx, s, ev)
	if err != nil {
		return err
	}
	was := ""
	if l.Toolchain != nil && l.Toolchain.Blake3 != bin.Sum {
		was = l.Toolchain.Blake3
	}
	l.Toolchain = &lock.Toolchain{Blake3: bin.Sum}
	l.Entries = entries
	if err := s.WriteLock(l); err != nil {
		return err
	}
	if was != "" {
		fmt.Fprintf(a.stdout, "pinned zap-eval %s (was %s)\n", bin.Sum, was)
	} else {
		fmt.Fprintf(a.stdout, "pinned zap-eval %s\n", bin.Sum)
	}
	for _, e := range entries {
		printPinned(a.stdout, e, old.Entry(e.ID))
	}
	for _, e := range old.Entries {
		if l.Entry(e.ID) == nil {
			fmt.Fprintf(a.stdout, "dropped %s (%s): no resource tracks a pin under this id\n", escape.Line(e.ID), escape.Line(e.Kind))
		}
	}
	render.LockNotes(a.stdout, notes)
	return nil
}

// mintAll fetches every tracked source of ev and mints its entry, in
// declaration order, stopping at the first failure.
func mintAll(ctx context.Context, s *session, ev *pass.Evaluation) ([]lock.Entry, []lockhash.Note, error) {
	rep, err := s.Standing(ev)
	if err != nil {
		return nil, nil, err
	}
	if len(rep.Tracked) == 0 {
		return nil, rep.Notes, nil
	}
	m, err := s.NewMinter(ev)
	if err != nil {
		return nil, nil, err
	}
	defer m.Close()
	var out []lock.Entry
	for _, st := range rep.Tracked {
		e, err := m.Mint(ctx, pass.ResourceOf(ev.Decl, st.ID))
		if err != nil {
			return nil, nil, exit.WithHints(err, "nothing was written: zap lock writes every entry or none")
		}
		out = append(out, e)
	}
	return out, rep.Notes, nil
}

// printPinned says what minting e did to the entry it replaces (nil: none).
func printPinned(w io.Writer, e lock.Entry, old *lock.Entry) {
	id := escape.Line(e.ID)
	switch {
	case old == nil:
		fmt.Fprintf(w, "pinned %s (%s) %s\n", id, e.Kind, e.Blake3)
	case old.Blake3 != e.Blake3:
		fmt.Fprintf(w, "pinned %s (%s) %s (was %s)\n", id, e.Kind, e.Blake3, old.Blake3)
	case old.ConfigHash != e.ConfigHash || old.Kind != e.Kind:
		fmt.Fprintf(w, "pinned %s (%s) %s (re-minted for the declaration as it is now)\n", id, e.Kind, e.Blake3)
	default:
		fmt.Fprintf(w, "pinned %s (%s) %s (unchanged)\n", id, e.Kind, e.Blake3)
	}
}

// cmdLockCheck is zap lock --check: the toolchain pin first, then every
// tracked pin's standing, offline and read-only; any finding exits 1.
func (a *app) cmdLockCheck(ctx context.Context, config string) error {
	s, err := a.open(config, false)
	if err != nil {
		return err
	}
	ev, err := s.Load(ctx)
	var off *pass.OffPinError
	if errors.As(err, &off) {
		fmt.Fprintf(a.stdout, "stale toolchain pin: zap-eval %s hashes to %s, not the pin %s in %s\n", off.Path, off.Sum, off.Pin, s.Lock)
		fmt.Fprintln(a.stdout, "the entries go unchecked until it is pinned: run zap lock, or point --evaluator at the pinned zap-eval")
		return exit.Reported(1)
	}
	if err != nil {
		return err
	}
	rep, err := s.Standing(ev)
	if err != nil {
		return err
	}
	fmt.Fprintln(a.stdout, "toolchain pin: current")
	for _, st := range rep.Tracked {
		fmt.Fprintf(a.stdout, "%s  %s: %s", escape.Line(st.ID), st.Kind, st.Class)
		if why := st.Why(); why != "" {
			fmt.Fprintf(a.stdout, ": %s", escape.Line(why))
		}
		fmt.Fprintln(a.stdout)
	}
	for _, st := range rep.Orphans {
		fmt.Fprintf(a.stdout, "%s  %s: %s: %s\n", escape.Line(st.ID), escape.Line(st.Kind), st.Class, st.Why())
	}
	render.LockNotes(a.stdout, rep.Notes)
	n := len(rep.Findings())
	if n == 0 {
		fmt.Fprintf(a.stdout, "zap.lock: %d tracked pin(s), all current\n", len(rep.Tracked))
		return nil
	}
	fmt.Fprintf(a.stdout, "zap.lock: %d finding(s)\n", n)
	return exit.Reported(1)
}
