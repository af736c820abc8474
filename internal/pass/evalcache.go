package pass

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/zap-go/zap/internal/escape"
	"github.com/zap-go/zap/internal/evalcache"
	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/pin"
	"github.com/zap-go/zap/internal/state"
	"github.com/zap-go/zap/pkg/declaration"
)

// The config eval cache (internal/evalcache), under <state>/cache/eval/.
// It is written only on the path that reads it: ZAP_EVAL_CACHE decides.
//
//   - unset, or off: the evaluator runs, every time, so the project walk,
//     the sandbox and the evaluator's report (the secret gate against this
//     environment included) are checked on every command; the cache is
//     neither read nor written.
//   - skip: a hit is served without running the evaluator. The binary is
//     still opened, hashed and held to its pin first, and the entry must
//     be for this config and this pin, with every recorded input hashing
//     as it did, but the project walk, the sandbox and the secret gate
//     aren't checked on a hit (docs/protocol.md). A miss runs the
//     evaluator and records what it made.
//
// Any other value is refused, exit 2. With no usable state directory
// nothing is cached. A cache directory or entry that isn't the user's own,
// or that another account can use, is refused, exit 2; any other failure
// to write an entry is a warning, and the command goes on.

// evalCacheVar is the variable that turns the cache's use on and off.
const evalCacheVar = "ZAP_EVAL_CACHE"

// evaluateCached evaluates the config with bin, whose blake3 is the pin,
// through the eval cache.
func (s *Session) evaluateCached(ctx context.Context, bin *pin.Binary, pin string) (*Evaluation, error) {
	mode := s.env.Getenv(evalCacheVar)
	switch mode {
	case "", "skip", "off":
	default:
		return nil, exit.Fail(2, fmt.Sprintf("%s is %q", evalCacheVar, escape.Line(mode)),
			"set ZAP_EVAL_CACHE=skip to be served a cached evaluation, off to use no cache, or leave it unset")
	}
	if s.cache == nil || mode != "skip" {
		return s.RunEvaluator(ctx, bin)
	}
	c := evalcache.Open(s.cache.Dir())
	out, hit, err := c.Lookup(s.Abs, pin)
	if err != nil {
		return nil, evalCacheError(err)
	}
	if hit {
		if ev := cachedEvaluation(out); ev != nil {
			return ev, nil
		}
	}
	return s.evaluateRecording(ctx, bin, c, pin)
}

// evaluateRecording runs the evaluator, as on a miss, and records what it
// made in c.
func (s *Session) evaluateRecording(ctx context.Context, bin *pin.Binary, c *evalcache.Cache, pin string) (*Evaluation, error) {
	if err := c.Ensure(); err != nil {
		if errors.Is(err, state.ErrUntrusted) {
			return nil, evalCacheError(err)
		}
		s.evalCacheWarning(err)
		return s.RunEvaluator(ctx, bin)
	}
	f, err := os.CreateTemp(c.Dir(), ".inputs-*")
	if err != nil {
		s.evalCacheWarning(err)
		return s.RunEvaluator(ctx, bin)
	}
	tmp := f.Name()
	f.Close()
	defer os.Remove(tmp)
	out, err := s.evaluatorOutput(ctx, bin, "--inputs", tmp)
	if err != nil {
		return nil, err
	}
	// The entry is made (its inputs read, checked and hashed, and encoded)
	// while zap reads the declaration, and recorded only once that reads.
	type prepared struct {
		p    *evalcache.Pending
		none bool
		err  error
	}
	ready := make(chan prepared, 1)
	go func() {
		data, err := os.ReadFile(tmp)
		if err == nil && len(data) == 0 {
			// An evaluator that reported no inputs: nothing to record.
			ready <- prepared{none: true}
			return
		}
		var p *evalcache.Pending
		if err == nil {
			var inputs []evalcache.Input
			if inputs, err = evalcache.ReadInputs(data); err == nil {
				p, err = c.Prepare(s.Abs, pin, inputs, out)
			}
		}
		ready <- prepared{p: p, err: err}
	}()
	ev, err := readEvaluation(bin, out)
	entry := <-ready
	if err != nil {
		return nil, err
	}
	if entry.none {
		return ev, nil
	}
	err = entry.err
	if err == nil {
		err = entry.p.Write()
	}
	if err != nil {
		if errors.Is(err, state.ErrUntrusted) {
			return nil, evalCacheError(err)
		}
		s.evalCacheWarning(err)
	}
	return ev, nil
}

// cachedEvaluation reads a cached declaration as zap reads zap-eval's; nil
// when it doesn't read (then the evaluator runs).
func cachedEvaluation(out []byte) *Evaluation {
	d, err := declaration.Read(out)
	if err != nil || d.Validate() != nil {
		return nil
	}
	return &Evaluation{Decl: d, JSON: out}
}

func evalCacheError(err error) error {
	return fileError("eval cache", err,
		"every file under ~/.zap (or $ZAP_HOME) must belong to the user Zap runs as, and the eval cache must be private to it; fix or remove it",
		"zap records no entry past the limits of a document; remove it")
}

func (s *Session) evalCacheWarning(err error) {
	fmt.Fprintf(s.env.Stderr, "warning: eval cache: %s\n", escape.Line(err.Error()))
}
