package localops

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/internal/ops/asroot"
	"github.com/zap-go/zap/internal/target"
	"github.com/zap-go/zap/pkg/events"
	"github.com/zap-go/zap/pkg/plan"
)

// sudoCheckLimit bounds `sudo -n true`, which never waits on a prompt.
const sudoCheckLimit = 30 * time.Second

// sudoGrace is how long a script under sudo has to end after it was sent
// SIGTERM (sudo passes it on) before sudo is killed.
const sudoGrace = 5 * time.Second

// Sudo performs Zap's operations as root with the constant scripts of
// internal/ops: one `sudo -n sh -s -- PATH [MODE OWNER GROUP]` per
// operation, the other arguments, the script (ops.Input) and a put's content
// (ops.PutScriptInput) on stdin; a put of a Body runs the put-stream script as
// `sudo -n sh -c SCRIPT sh PATH MODE OWNER GROUP` instead, its other
// arguments framed and then its raw bytes on stdin (ops.StreamInput), so
// no shell holds them, and an archive to extract runs its script the same
// way. Each runs in a process group of its own but
// in Zap's session, where sudo finds the credential a sudo -v on its
// terminal left (-n: it never prompts). It is the Host.Elevated of a local
// target: what the system refused natively is done again this way, whole.
//
// Before the host's first operation as root one `sudo -n true` checks that
// sudo works without a prompt (once per run, shared with Host.Op); a sudo
// that won't is the fixed failure "sudo authentication failed"
// (permission), and every later operation fails the same way without
// asking again. A put with a validate check is
// asroot.ValidatedPut: the put script reads the old file as root before it
// writes, Check runs the command (as the operator, as an operator's command
// runs), and a failed check puts the old file back under sudo.
type Sudo struct {
	// AsRoot's Root is the Sudo itself; its Check runs a validate
	// command as the host runs commands.
	target.AsRoot
	host *Host
}

// NewSudo returns the sudo fallback of h: sudo runs with h's environment, and
// a validate command runs as h runs commands.
func NewSudo(h *Host) *Sudo {
	s := &Sudo{host: h}
	s.AsRoot = target.AsRoot{Root: s, Check: h.Run}
	return s
}

var _ Ops = (*Sudo)(nil)
var _ asroot.CommandRoot = (*Sudo)(nil)

// RunOp runs one operation script under sudo (asroot.Root) and returns what it
// printed on stdout, up to a snapshot's size.
func (s *Sudo) RunOp(ctx context.Context, name plan.OpName, stdin []byte, args ...string) ([]byte, error) {
	sudo, err := s.check(ctx)
	if err != nil {
		return nil, err
	}
	argv := append(append([]string{"-n"}, strings.Fields(ops.Invocation)...), args...)
	return s.run(ctx, name, sudo, argv, bytes.NewReader(stdin))
}

// RunOpCommand runs script as `sudo -n sh -c SCRIPT sh ARGS...` with stdin
// a stream (asroot.CommandRoot).
func (s *Sudo) RunOpCommand(ctx context.Context, name plan.OpName, script string, stdin io.Reader, args ...string) ([]byte, error) {
	sudo, err := s.check(ctx)
	if err != nil {
		return nil, err
	}
	return s.run(ctx, name, sudo, append([]string{"-n", "sh", "-c", script, "sh"}, args...), stdin)
}

// run runs sudo with argv, an operation script's, and stdin.
func (s *Sudo) run(ctx context.Context, name plan.OpName, sudo string, argv []string, stdin io.Reader) ([]byte, error) {
	cmd := exec.CommandContext(ctx, sudo, argv...)
	// The script runs as root, out of reach of a signal from here: sudo
	// passes SIGTERM on to it.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = sudoGrace
	return s.host.runOp(ctx, cmd, name, stdin, " under sudo")
}

// runOp runs cmd, an operation script's shell (sh reading it on stdin), in
// a process group of its own with h's environment, and returns what it
// printed on stdout, up to a snapshot's size; a failure is the script's,
// classified (asroot.Failure). how says how it ran (" under sudo", or "").
func (h *Host) runOp(ctx context.Context, cmd *exec.Cmd, name plan.OpName, stdin io.Reader, how string) ([]byte, error) {
	cmd.Env = h.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.Stdin = stdin
	var out target.OpOutput
	stderr := execute.OutputTail(ctx)
	cmd.Stdout, cmd.Stderr = &out, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return nil, execute.Errorf(events.Transient, "the %s script%s was stopped: %v", name, how, ctx.Err())
	case out.Over():
		return nil, target.OverError(name)
	case err == nil:
		return out.Bytes(), nil
	case errors.As(err, &ee) && ee.Exited():
		return nil, asroot.Failure(name, ee.ExitCode(), stderr.String())
	}
	return nil, execute.Errorf(events.Permanent, "the %s script%s: %v", name, how, err)
}

// check makes sure, once per run, that sudo works without a prompt, and
// returns its path.
func (s *Sudo) check(ctx context.Context) (string, error) {
	sudo, err := exec.LookPath("sudo")
	if err != nil {
		return "", execute.Errorf(events.Permission, "the operation was denied, and there is no sudo on this machine to ask")
	}
	h := s.host
	h.sudo.once.Do(func() {
		cctx, cancel := context.WithTimeout(ctx, sudoCheckLimit)
		defer cancel()
		c := exec.CommandContext(cctx, sudo, "-n", "true")
		c.Env = h.Env
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if c.Run() != nil {
			h.sudo.err = errSudo
		}
	})
	return sudo, h.sudo.err
}
