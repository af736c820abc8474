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
	"fmt"
	"io"
	"strings"

	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/stage"

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

  --version    print the version and exit

Environment: none; zap-plan reads nothing but its input.

Examples:
  zap-plan observations.json > plan.json
  zap-eval zap.ts | zap-detect | zap-plan | jq .plan_hash

Exit status: 0 the plan was written (held resources are listed in it),
2 bad input, 1 the input couldn't be read or the output written.
`

// Main runs zap-plan with args and returns its exit code.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return stage.Finish("zap-plan", usage, run(ctx, args, stdin, stdout), stdout, stderr)
}

func run(_ context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	fs := stage.NewFlagSet("zap-plan")
	if err := stage.Parse(fs, args); err != nil {
		return err
	}
	data, err := stage.ReadInput(fs, stdin, "observations")
	if err != nil {
		return err
	}

	o, err := observation.Read(data)
	if err != nil {
		return stage.Unreadable(err, "observations", "zap-detect")
	}
	if err := checkContext(o); err != nil {
		return err
	}
	p, err := planner.Plan(o)
	if err != nil {
		return exit.BadInput(fmt.Errorf("observations: %w", err))
	}
	if p.Hash, err = plan.Hash(p, ops.Script); err != nil {
		return fmt.Errorf("plan_hash: %w", err)
	}
	out, err := p.Encode()
	if err != nil {
		return fmt.Errorf("encode the plan: %w", err)
	}
	if err := stage.CheckOutput(out, "plan", "zap-exec", "a file's inline content is in the plan twice, in the resource and in its put step"); err != nil {
		return err
	}
	if _, err := stdout.Write(append(out, '\n')); err != nil {
		return exit.InWorld(fmt.Errorf("write the plan: %w", err))
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
			return exit.BadInput(fmt.Errorf("observations: context.target: %q, but the declaration's target is a remote host", c.Target))
		case c.Home != o.Declaration.Target.Home:
			return exit.BadInput(fmt.Errorf("observations: context.home: %q, but the declaration's target declares home %q", c.Home, o.Declaration.Target.Home))
		}
		return nil
	}
	switch {
	case c.Target != "local":
		return exit.BadInput(fmt.Errorf("observations: context.target: %q, but the declaration's target is local", c.Target))
	case c.User == "":
		return exit.BadInput(errors.New("observations: context.user: a local plan names the user it runs as"))
	case c.Bootstrap:
		return exit.BadInput(errors.New("observations: context.bootstrap: a local target has no bootstrap_user to connect as"))
	case !strings.HasPrefix(c.Home, "/"):
		return exit.BadInput(fmt.Errorf("observations: context.home: %q is not an absolute path (the HOME a ~ resolves to)", c.Home))
	}
	return nil
}
