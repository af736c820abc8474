package localops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/zap-go/zap/internal/execute"
)

// waitDelay is how long a finished command's output is still read while a
// process it left behind holds the pipes open.
const waitDelay = 2 * time.Second

// Run runs an operator's command: the shell reads c.Script on stdin, in its
// own session, with h.Env. A working directory it can't enter fails the
// command before anything runs.
func (h *Host) Run(ctx context.Context, c *execute.Command) error {
	if c.Cwd != "" {
		fi, err := os.Stat(c.Cwd)
		if err != nil {
			return fmt.Errorf("can't enter %s: %w", c.Cwd, errors.Unwrap(err))
		}
		if !fi.IsDir() {
			return fmt.Errorf("can't enter %s: %w", c.Cwd, syscall.ENOTDIR)
		}
	}
	return h.runScript(ctx, []string{h.shell(), "-s"}, c, nil, false)
}

// runScript runs argv, which reads c.Script on stdin (or stdin, when it
// isn't nil: c.Script and what follows it, streamed), in its own session,
// in c.Cwd, under c.Timeout. With keepTerminal it is only its own process
// group, still in Zap's session, for a sudo that must find the credential a
// sudo -v on the session's terminal left.
func (h *Host) runScript(ctx context.Context, argv []string, c *execute.Command, stdin io.Reader, keepTerminal bool) error {
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = c.Cwd
	cmd.Env = h.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.Stdin = stdin
	if stdin == nil {
		cmd.Stdin = strings.NewReader(c.Script)
	}
	stdout, stderr := execute.OutputTail(ctx), execute.OutputTail(ctx)
	// A running step's last line is followed (execute.WithLive) from the
	// same bytes; what the step's result keeps is the tails alone.
	cmd.Stdout, cmd.Stderr = execute.LiveStreams(ctx, stdout, stderr)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: !keepTerminal, Setpgid: keepTerminal}
	cmd.Cancel = func() error {
		// The command's process group is its session's: kill all of it.
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = waitDelay
	err := cmd.Run()
	output := func() string { return execute.JoinOutput(stdout.String(), stderr.String()) }
	if ctx.Err() != nil && c.Timeout > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &execute.TimeoutError{After: c.Timeout, Output: output()}
	}
	if err == nil || (errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil && cmd.ProcessState.Success()) {
		return nil
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted: %w", ctx.Err())
		}
		status := ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			status = 128 + int(ws.Signal())
		}
		if status == execute.CwdStatus && c.Cwd != "" {
			if _, serr := os.Stat(c.Cwd); serr != nil {
				return fmt.Errorf("can't enter %s: %w", c.Cwd, errors.Unwrap(serr))
			}
		}
		return &execute.ExitError{Status: status, Output: output()}
	}
	return fmt.Errorf("start %s: %w", argv[0], err)
}
