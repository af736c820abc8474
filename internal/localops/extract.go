package localops

import (
	"bytes"
	"context"
	"errors"
	"io"
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
// operator's and one under /opt is root's. Only the destination decides
// that: the script reports whatever fails because of what the archive
// holds (a device, a link out of the tree, a directory it can't finish)
// as a permanent failure, never a refused one, so no archive takes the
// extraction to root.
func (h *Host) Extract(ctx context.Context, x *execute.Extract, archive io.Reader, size int64, sha string) error {
	err := asroot.Extract(ctx, asUser{h}, x, archive, size, sha)
	var ce *execute.CodedError
	e, ok := h.Elevated.(execute.Extractor)
	seeker, again := archive.(io.Seeker)
	if ok && again && errors.As(err, &ce) && ce.Code == events.Permission {
		// The archive is read again from its start, as root.
		if _, serr := seeker.Seek(0, io.SeekStart); serr != nil {
			return serr
		}
		return e.Extract(ctx, x, archive, size, sha)
	}
	return err
}

// asUser runs an operation script as the operator (an asroot.Root that
// isn't root).
type asUser struct{ h *Host }

func (u asUser) RunOp(ctx context.Context, name plan.OpName, stdin []byte, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, u.h.shell(), append([]string{"-s", "--"}, args...)...)
	return u.h.runOp(ctx, cmd, name, bytes.NewReader(stdin), "")
}

// RunOpCommand runs script as `sh -c SCRIPT sh ARGS...` as the operator
// (asroot.CommandRoot).
func (u asUser) RunOpCommand(ctx context.Context, name plan.OpName, script string, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, u.h.shell(), append([]string{"-c", script, "sh"}, args...)...)
	return u.h.runOp(ctx, cmd, name, stdin, "")
}
