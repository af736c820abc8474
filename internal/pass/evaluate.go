package pass

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/lock"
	"github.com/zap-go/zap/internal/pin"
	"github.com/zap-go/zap/internal/state"
	"github.com/zap-go/zap/pkg/declaration"
)

// The toolchain pin: every command that evaluates reads the blake3 of the
// zap-eval binary zap.lock pins, opens the binary once (internal/pin), and
// runs it only when it hashes to the pin; zap lock records the pin instead.

const lockHint = "run zap lock to pin the zap-eval this config is evaluated with"

// evaluatorPath is the zap-eval to run: --evaluator, else $ZAP_EVAL, else
// the one installed beside zap. One named by flag or environment must be
// absolute: Zap never looks one up on PATH.
func (s *Session) evaluatorPath() (string, error) {
	p, from := s.env.Evaluator, "--evaluator"
	if p == "" {
		p, from = s.env.Getenv("ZAP_EVAL"), "ZAP_EVAL"
	}
	if p == "" {
		return filepath.Join(s.Stages.Dir(), "zap-eval"), nil
	}
	if !filepath.IsAbs(p) {
		return "", exit.Fail(2, fmt.Sprintf("%s %s is not an absolute path", from, p),
			"name the zap-eval binary by its absolute path; Zap never looks one up on PATH")
	}
	return p, nil
}

// OpenEvaluator opens and hashes the evaluator, through the pin cache when
// the state directory can hold one.
func (s *Session) OpenEvaluator() (*pin.Binary, error) {
	path, err := s.evaluatorPath()
	if err != nil {
		return nil, err
	}
	o := pin.Options{Now: s.env.Now}
	if s.cache != nil {
		o.Cache = s.cache.PinCache()
	}
	b, err := pin.Open(path, o)
	switch {
	case err == nil:
		return b, nil
	case errors.Is(err, pin.ErrRefused):
		return nil, exit.BadInput(fmt.Errorf("zap-eval: %w", err),
			"name the zap-eval binary itself, by its absolute path, with --evaluator or ZAP_EVAL")
	case errors.Is(err, pin.ErrChanged):
		return nil, exit.InWorld(fmt.Errorf("zap-eval: %w", err), "retry once nothing writes the binary")
	case errors.Is(err, state.ErrUntrusted), pastLimit(err):
		return nil, StateError(err)
	}
	return nil, exit.Failf(1, "zap-eval: %w", err)
}

// ReadLock reads the config's lock; nil when there is none.
func (s *Session) ReadLock() (*lock.Lock, error) {
	l, err := lock.Read(s.Lock)
	switch {
	case err == nil:
		return l, nil
	case errors.Is(err, lock.ErrNewer):
		return nil, exit.BadInput(err, "this zap is older than the one that wrote the lock; upgrade zap")
	case errors.Is(err, lock.ErrLink):
		return nil, exit.BadInput(err, "zap.lock is committed beside the config: make it a regular file of its own")
	case errors.Is(err, lock.ErrInvalid):
		return nil, exit.BadInput(err, "fix it, or restore it from version control")
	}
	return nil, exit.InWorld(err)
}

// toolchainPin is the pin the config's lock records, refusing a lock that
// records none.
func (s *Session) toolchainPin() (string, error) {
	l, err := s.ReadLock()
	if err != nil {
		return "", err
	}
	if l == nil {
		return "", exit.Fail(2, fmt.Sprintf("no toolchain pin: %s doesn't exist", s.Lock), lockHint)
	}
	if l.Toolchain == nil {
		return "", exit.Fail(2, fmt.Sprintf("no toolchain pin: %s pins no zap-eval", s.Lock), lockHint)
	}
	return l.Toolchain.Blake3, nil
}

// OffPinError is an evaluator that hashes to something else than the
// toolchain pin: an input to fix (exit 2, the *Error it wraps), which zap
// lock --check reports as a stale toolchain pin instead.
type OffPinError struct {
	Path, Sum, Pin string
	err            error
}

func (e *OffPinError) Error() string { return e.err.Error() }

func (e *OffPinError) Unwrap() error { return e.err }

// evaluate evaluates the config with the pinned evaluator.
func (s *Session) evaluate(ctx context.Context) (*Evaluation, error) {
	want, err := s.toolchainPin()
	if err != nil {
		return nil, err
	}
	bin, err := s.OpenEvaluator()
	if err != nil {
		return nil, err
	}
	defer bin.Close()
	if bin.Sum != want {
		return nil, &OffPinError{Path: bin.Path, Sum: bin.Sum, Pin: want,
			err: exit.Fail(2, fmt.Sprintf("zap-eval %s hashes to %s, not the toolchain pin %s in %s", bin.Path, bin.Sum, want, s.Lock),
				"run zap lock to pin it, or point --evaluator at the pinned one")}
	}
	return s.evaluateCached(ctx, bin, want)
}

// RunEvaluator runs the opened evaluator on the config: the operator
// environment (zap-eval reads the variables the secret gate looks at) with
// TZ=UTC. args go before the config (evalcache.go: --inputs FILE).
func (s *Session) RunEvaluator(ctx context.Context, bin *pin.Binary, args ...string) (*Evaluation, error) {
	out, err := s.evaluatorOutput(ctx, bin, args...)
	if err != nil {
		return nil, err
	}
	return readEvaluation(bin, out)
}

// evaluatorOutput runs the opened evaluator (RunEvaluator) and returns what
// it wrote.
func (s *Session) evaluatorOutput(ctx context.Context, bin *pin.Binary, args ...string) ([]byte, error) {
	cmd, err := bin.Command(ctx, append(args, s.Config)...)
	if err != nil {
		if errors.Is(err, pin.ErrChanged) {
			return nil, exit.InWorld(fmt.Errorf("zap-eval: %w", err), "retry once nothing writes the binary")
		}
		return nil, exit.Failf(1, "zap-eval: %w", err)
	}
	release, err := s.Stages.EvalCommand(cmd)
	if err != nil {
		return nil, exit.Failf(1, "zap-eval: %w", err)
	}
	out, err := s.Stages.RunCmd(cmd, "zap-eval", nil)
	release()
	if err == nil {
		s.startEarlyDetect(ctx, out)
	}
	return out, err
}

// readEvaluation reads what the evaluator bin wrote as zap reads it.
func readEvaluation(bin *pin.Binary, out []byte) (*Evaluation, error) {
	d, err := declaration.Read(out)
	if err == nil {
		err = d.Validate()
	}
	if err != nil {
		if f := firstFormat(out); f != declaration.Format && strings.HasPrefix(f, "zap.declaration/") {
			return nil, exit.Fail(2, fmt.Sprintf("zap-eval %s answers in %s, and this zap reads %s", bin.Path, f, declaration.Format),
				"use the zap-eval that came with this zap, and run zap lock to pin it")
		}
		return nil, exit.Failf(1, "zap-eval wrote a declaration zap can't read: %w", err)
	}
	return &Evaluation{Decl: d, JSON: out}, nil
}

// firstFormat is the string value of a document's first field when that
// field is "format"; "" otherwise.
func firstFormat(doc []byte) string {
	dec := json.NewDecoder(bytes.NewReader(doc))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	if k, err := dec.Token(); err != nil || k != "format" {
		return ""
	}
	v, _ := dec.Token()
	f, _ := v.(string)
	return f
}
