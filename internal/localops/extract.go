package localops

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"syscall"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/ops/asroot"
	"github.com/zap-go/zap/internal/target"
	"github.com/zap-go/zap/pkg/events"
	"github.com/zap-go/zap/pkg/plan"
)

// Extract extracts an archive with the extract script of internal/ops: as
// the operator first, and, when that is refused (a permission failure, as
// where the destination's parent is root's), again whole as root through
// Elevated (sudo), so a tree under the operator's home stays the
// operator's and one under /opt is root's.
func (h *Host) Extract(ctx context.Context, x *execute.Extract, data []byte, sha string) error {
	err := asroot.Extract(ctx, asUser{h}, x, data, sha)
	var ce *execute.CodedError
	if e, ok := h.Elevated.(execute.Extractor); ok && errors.As(err, &ce) && ce.Code == events.Permission {
		return e.Extract(ctx, x, data, sha)
	}
	return err
}

// asUser runs an operation script as the operator (an asroot.Root that
// isn't root): sh reads the script and its input on stdin, in a session
// of its own.
type asUser struct{ h *Host }

func (u asUser) RunOp(ctx context.Context, name plan.OpName, stdin []byte, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, u.h.shell(), append([]string{"-s", "--"}, args...)...)
	cmd.Env = u.h.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.Stdin = bytes.NewReader(stdin)
	var out target.OpOutput
	stderr := execute.NewTail(execute.OutputLimit)
	cmd.Stdout, cmd.Stderr = &out, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return nil, execute.Errorf(events.Transient, "the %s script was stopped: %v", name, ctx.Err())
	case out.Over():
		return nil, target.OverError(name)
	case err == nil:
		return out.Bytes(), nil
	case errors.As(err, &ee) && ee.Exited():
		return nil, asroot.Failure(name, ee.ExitCode(), stderr.String())
	}
	return nil, execute.Errorf(events.Permanent, "the %s script: %v", name, err)
}
