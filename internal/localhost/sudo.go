package localhost

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/zap-go/zap/internal/batch"
	"github.com/zap-go/zap/internal/detect"
)

// SudoFailed is the fixed reason a read that needed root holds with when
// sudo won't authenticate without a prompt.
const SudoFailed = detect.SudoFailed

// sudoCheckLimit bounds `sudo -n true`, which never waits on a prompt.
const sudoCheckLimit = 30 * time.Second

// errNoSudo is a machine with no sudo on the operator's PATH.
var errNoSudo = errors.New("there is no sudo on this machine")

// errSudoFailed is a sudo that won't authenticate without a prompt.
var errSudoFailed = errors.New(SudoFailed)

// asRoot answers queries as root in one batch: it first checks that
// `sudo -n true` works (no prompt), then runs the batch of internal/batch
// with `sudo -n sh`, the script on stdin, under the batch's deadline and
// output limit. A sudo that won't authenticate is errSudoFailed.
//
// Both run in a process group of their own but in Zap's session, so they
// keep its controlling terminal: sudo keeps a password typed for sudo -v
// per terminal (Debian's default timestamp_type), and a sudo in a session
// of its own would find no credential to reuse. Nothing is read from the
// terminal: -n never prompts, and stdin is the script.
func (h *Host) asRoot(ctx context.Context, queries []detect.Query) ([]detect.Answer, error) {
	sudo, err := exec.LookPath("sudo")
	if err != nil {
		return nil, errNoSudo
	}
	cctx, cancel := context.WithTimeout(ctx, sudoCheckLimit)
	defer cancel()
	check := exec.CommandContext(cctx, sudo, "-n", "true")
	check.Env = h.Env
	check.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := check.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, errors.New("the pass was cancelled")
		}
		return nil, errSudoFailed
	}
	b, err := batch.New(queries)
	if err != nil {
		return nil, err
	}
	bctx, bcancel := context.WithTimeout(ctx, b.Deadline())
	defer bcancel()
	cmd := exec.CommandContext(bctx, sudo, "-n", "sh")
	cmd.Env = h.Env
	cmd.Stdin = strings.NewReader(b.Script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = killGrace
	out := capped{limit: batch.OutputLimit, fail: true}
	cmd.Stdout = &out
	runErr := cmd.Run()
	switch {
	case out.over:
		return nil, fmt.Errorf("the root batch's output passed %d MiB", batch.OutputLimit>>20)
	case bctx.Err() != nil && ctx.Err() == nil:
		return nil, fmt.Errorf("the root batch passed its deadline of %s", b.Deadline())
	case ctx.Err() != nil:
		return nil, errors.New("the pass was cancelled")
	}
	answers, perr := b.Parse(out.buf.Bytes())
	if perr == nil {
		return answers, nil
	}
	if !b.Started(out.buf.Bytes()) && runErr != nil {
		return nil, errSudoFailed
	}
	return nil, perr
}

// reaskDenied asks the path reads of answers that were denied again as
// root, in one batch, and puts the new answers in their place. When the
// batch fails, each of those reads fails with its reason, or, when sudo
// won't authenticate, answers StatusSudoFailed.
func (h *Host) reaskDenied(ctx context.Context, queries []detect.Query, answers []detect.Answer) {
	var idx []int
	var denied []detect.Query
	for i, a := range answers {
		if a.Status == detect.StatusDenied && queries[i].Op != detect.OpCommand {
			idx = append(idx, i)
			denied = append(denied, queries[i])
		}
	}
	if len(denied) == 0 {
		return
	}
	root, err := h.asRoot(ctx, denied)
	for n, i := range idx {
		switch {
		case errors.Is(err, errSudoFailed):
			answers[i] = detect.Answer{Status: detect.StatusSudoFailed}
			continue
		case err != nil:
			answers[i] = failed(err.Error())
			continue
		}
		answers[i] = root[n]
	}
}
