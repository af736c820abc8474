package localops

import (
	"context"
	"errors"
	"os/exec"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/ops/asroot"
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
// isn't root).
type asUser struct{ h *Host }

func (u asUser) RunOp(ctx context.Context, name plan.OpName, stdin []byte, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, u.h.shell(), append([]string{"-s", "--"}, args...)...)
	return u.h.runOp(ctx, cmd, name, stdin, "")
}
