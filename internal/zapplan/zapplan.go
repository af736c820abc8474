// Package zapplan is zap-plan, the planning stage: a pure function from one
// detection pass's observations to the plan.
//
// Usage:
//
//	zap-plan [OBSERVATIONS]
//
// zap-plan reads the observations zap-detect wrote (from the file
// OBSERVATIONS, or stdin when it is absent), validates them and the
// declaration they carry, computes the plan (internal/planner), sets its
// plan_hash (plan.Hash over the plan and the operation scripts of
// internal/ops), and writes it to stdout as canonical JSON and a newline.
// It reads nothing else: no environment, no clock, no target.
//
// Exit codes: 0 it wrote the plan (held resources included: the plan lists
// them, and the front end judges); 2 bad input (an unknown flag, a document
// that doesn't decode or validate, with the field named; a dependency
// cycle; a remote target); 1 a problem in the world (the input can't be
// read, the output can't be written).
package zapplan

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/peterbourgon/ff/v3"

	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/internal/planner"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

const usage = `usage: zap-plan [OBSERVATIONS]

Reads the observations of one detection pass (zap-detect's output) from the
file OBSERVATIONS, or from stdin when it is absent, and writes the plan, with
its plan_hash, to stdout.

  zap-eval zap.ts | zap-detect | zap-plan

Exit status: 0 the plan was written (held resources are listed in it),
2 bad input, 1 the input couldn't be read or the output written.
`

// exitError carries the exit code of a failure and, when a fix is known,
// hint lines.
type exitError struct {
	code  int
	err   error
	hints []string
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func badInput(err error, hints ...string) error { return &exitError{code: 2, err: err, hints: hints} }
func inWorld(err error) error                   { return &exitError{code: 1, err: err} }

// Main runs zap-plan with args and returns its exit code.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	err := run(ctx, args, stdin, stdout)
	if err == nil {
		return 0
	}
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, usage)
		return 0
	}
	code := 1
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	}
	fmt.Fprintf(stderr, "zap-plan: %v\n", err)
	if ee != nil {
		for _, h := range ee.hints {
			fmt.Fprintf(stderr, "hint: %s\n", h)
		}
	}
	return code
}

func run(_ context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("zap-plan", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	if err := ff.Parse(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		// ff wraps the flag package's message in "error parsing
		// commandline arguments"; the message itself says enough.
		if inner := errors.Unwrap(err); inner != nil {
			err = inner
		}
		return badInput(err, "run zap-plan --help for its usage")
	}
	if fs.NArg() > 1 {
		return badInput(fmt.Errorf("want at most one observations file, not %d arguments", fs.NArg()), "run zap-plan --help for its usage")
	}

	var data []byte
	var err error
	if fs.NArg() == 1 {
		data, err = os.ReadFile(fs.Arg(0))
	} else {
		data, err = io.ReadAll(stdin)
	}
	if err != nil {
		return inWorld(fmt.Errorf("read observations: %w", err))
	}

	o, err := observation.Read(data)
	if err != nil {
		var hints []string
		if strings.HasPrefix(err.Error(), "format: this reader reads") {
			hints = append(hints, "make the observations with the zap-detect of this zap")
		}
		return badInput(fmt.Errorf("observations: %w", err), hints...)
	}
	if err := checkContext(o); err != nil {
		return err
	}
	p, err := planner.Plan(o)
	if err != nil {
		return badInput(fmt.Errorf("observations: %w", err))
	}
	if p.Hash, err = plan.Hash(p, ops.Script); err != nil {
		return fmt.Errorf("plan_hash: %w", err)
	}
	out, err := p.Encode()
	if err != nil {
		return fmt.Errorf("encode the plan: %w", err)
	}
	if _, err := stdout.Write(append(out, '\n')); err != nil {
		return inWorld(fmt.Errorf("write the plan: %w", err))
	}
	return nil
}

// checkContext refuses a context that doesn't name the local machine,
// account and HOME a local plan binds, or the host and declared home a
// remote plan binds (its user is the one zap-detect connected as, "" when
// ssh chose).
func checkContext(o *observation.Observations) error {
	c := o.Context
	if !o.Declaration.Target.Local {
		switch {
		case c.Target == "" || c.Target == "local":
			return badInput(fmt.Errorf("observations: context.target: %q, but the declaration's target is a remote host", c.Target))
		case c.Home != o.Declaration.Target.Home:
			return badInput(fmt.Errorf("observations: context.home: %q, but the declaration's target declares home %q", c.Home, o.Declaration.Target.Home))
		}
		return nil
	}
	switch {
	case c.Target != "local":
		return badInput(fmt.Errorf("observations: context.target: %q, but the declaration's target is local", c.Target))
	case c.User == "":
		return badInput(errors.New("observations: context.user: a local plan names the user it runs as"))
	case !strings.HasPrefix(c.Home, "/"):
		return badInput(fmt.Errorf("observations: context.home: %q is not an absolute path (the HOME a ~ resolves to)", c.Home))
	}
	return nil
}
