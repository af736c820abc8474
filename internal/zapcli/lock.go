package zapcli

import (
	"context"
	"errors"
	"fmt"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/zap-go/zap/internal/lock"
)

// lockCommand is zap lock [--evaluator PATH] [CONFIG].
func (a *app) lockCommand(f *flagSets) *ffcli.Command {
	return &ffcli.Command{
		Name:       "lock",
		ShortUsage: "zap lock [--evaluator PATH] [CONFIG]",
		ShortHelp:  "pin the zap-eval the config is evaluated with in zap.lock",
		LongHelp: `Hashes the zap-eval binary (--evaluator, else $ZAP_EVAL, else the one
beside zap), evaluates the config with it, and records its blake3 as the
toolchain pin in the config's lock (zap.ts -> zap.lock), whatever the lock
pinned before. Prints pinned zap-eval <blake3>, and (was <old>) when the pin
moved. Every other command that evaluates refuses a zap-eval off the pin.

Exit status: 0 pinned; 1 a problem in the world; 2 an input error.`,
		FlagSet: f.eval("zap lock"),
		Exec:    onConfig(a.cmdLock),
	}
}

// cmdLock is zap lock: hash the evaluator, evaluate the config with it, and
// record its blake3 as the toolchain pin, whatever the lock pinned before.
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
	if _, err := s.RunEvaluator(ctx, bin); err != nil {
		return err
	}
	if l == nil {
		l = &lock.Lock{}
	}
	was := ""
	if l.Toolchain != nil && l.Toolchain.Blake3 != bin.Sum {
		was = l.Toolchain.Blake3
	}
	l.Toolchain = &lock.Toolchain{Blake3: bin.Sum}
	if err := lock.Write(s.Lock, l); err != nil {
		if errors.Is(err, lock.ErrLink) {
			return fail(2, err.Error(), "zap.lock is committed beside the config: make it a regular file of its own")
		}
		return failf(1, "write %s: %v", s.Lock, err)
	}
	if was != "" {
		fmt.Fprintf(a.stdout, "pinned zap-eval %s (was %s)\n", bin.Sum, was)
	} else {
		fmt.Fprintf(a.stdout, "pinned zap-eval %s\n", bin.Sum)
	}
	return nil
}
