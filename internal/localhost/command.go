package localhost

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/vocab"
)

// killGrace is how long a timed-out command's process group has between
// SIGTERM and SIGKILL.
const killGrace = time.Second

// run runs an operator's command: the shell reads its script from stdin,
// in a new session (its own process group, no controlling terminal), with
// its output discarded, under the command's timeout. A probe (one of Zap's
// own commands) runs under LC_ALL=C and its stdout is kept for the answer.
func (h *Host) run(ctx context.Context, c *detect.Command, probe bool) detect.Answer {
	shell := h.Shell
	if shell == "" {
		shell = "/bin/sh"
	}
	limit := time.Duration(c.Timeout) * time.Second
	if c.Timeout <= 0 {
		limit = time.Duration(vocab.CheckTimeout) * time.Second
	}
	cmd := exec.Command(shell, "-s")
	cmd.Env = h.Env
	out := capped{limit: detect.ProbeOutputLimit}
	if probe {
		cmd.Env = append(append([]string{}, h.Env...), "LC_ALL=C")
		cmd.Stdout = &out
	}
	cmd.Stdin = strings.NewReader(c.Script())
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	// Something the command leaves running may hold the stdin pipe; don't
	// wait on it past the command's own exit for long.
	cmd.WaitDelay = killGrace
	if err := cmd.Start(); err != nil {
		return failed(fmt.Sprintf("can't start %s: %v", shell, err))
	}
	pid := cmd.Process.Pid
	// The leader is waited for without being reaped, so its pid, and with
	// it the process group's id, can't be given to another process while
	// the group is signalled.
	exited := make(chan struct{})
	go func() { waitExited(pid); close(exited) }()

	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case <-exited:
	case <-timer.C:
		stop(pid, exited)
		cmd.Wait()
		return detect.Answer{Status: detect.StatusTimedOut}
	case <-ctx.Done():
		stop(pid, exited)
		cmd.Wait()
		return failed("the pass was cancelled")
	}
	err := cmd.Wait()
	ps := cmd.ProcessState
	if ps == nil {
		return failed(err.Error())
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return failed(fmt.Sprintf("killed by signal %d (%v)", int(ws.Signal()), ws.Signal()))
	}
	// An exit status is the answer, even when something the command left
	// running kept its stdin open past it (exec.ErrWaitDelay).
	a := detect.Answer{Status: detect.StatusOK, Exit: ps.ExitCode()}
	if probe {
		if out.over {
			return failed(fmt.Sprintf("the probe printed more than %d bytes", detect.ProbeOutputLimit))
		}
		a.Output = out.buf.String()
	}
	return a
}

// capped keeps at most limit bytes of what a process writes and notes
// more. A write past limit is dropped: with fail set it fails (the writer
// stops reading a batch past its limit), without it the write reports
// success, so a probe isn't stopped by a broken pipe part way.
type capped struct {
	buf   bytes.Buffer
	limit int
	fail  bool
	over  bool
}

func (c *capped) Write(b []byte) (int, error) {
	if c.buf.Len()+len(b) > c.limit {
		c.over = true
		if c.fail {
			return 0, io.ErrShortWrite
		}
		return len(b), nil
	}
	return c.buf.Write(b)
}

// stop ends the process group led by pid: SIGTERM, then SIGKILL a second
// later whether or not the leader has exited by then, since what it started
// may not have. It returns once the leader has exited; the caller reaps it.
func stop(pid int, exited <-chan struct{}) {
	syscall.Kill(-pid, syscall.SIGTERM)
	time.Sleep(killGrace)
	// Until it is reaped the leader holds its pid, so the group id still
	// names this group, even when only the exited leader is left in it.
	syscall.Kill(-pid, syscall.SIGKILL)
	<-exited
}

// waitExited returns once the process pid has exited, leaving it to be
// reaped (waitid with WNOWAIT).
func waitExited(pid int) {
	var info unix.Siginfo
	for {
		if err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != unix.EINTR {
			return
		}
	}
}
