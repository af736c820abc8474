package localops

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/pkg/events"
	"github.com/zap-go/zap/pkg/plan"
)

// errSudo is the fixed failure of a root operation when sudo won't run
// without a password.
var errSudo = execute.Errorf(events.Permission, "sudo authentication failed")

// sudoState remembers, for one run, whether `sudo -n true` worked, so an
// operation that needs root asks once.
type sudoState struct {
	once sync.Once
	err  error
}

// Op runs one of Zap's other operations (a package install, a service's
// verb, an account's change): sh reads on stdin its arguments but the path
// and then its constant script (ops.Input), with the path, when it has one,
// after --, in a session of its own and under its limit. A login operation
// runs as the account Zap runs as. A root or elevated one runs as root:
// directly when Zap runs as root, else as `sudo -n sh -s -- [PATH]` once
// `sudo -n true` has shown sudo won't prompt (asked once per run; a sudo
// that would is the fixed failure "sudo authentication failed"). Through
// sudo the script keeps Zap's session, and so its terminal, where sudo
// finds a password typed for sudo -v. One with a payload (a build's source
// archive) runs as `[sudo -n] SHELL -c SCRIPT sh [PATH]` instead, its other
// arguments framed and then the payload's raw bytes on stdin
// (ops.StreamInput), so no shell holds the payload.
func (h *Host) Op(ctx context.Context, o *execute.ZapOp) error {
	args, input := o.Split()
	shell := []string{h.shell()}
	if o.Privilege != plan.Login && os.Geteuid() != 0 {
		sudo, err := exec.LookPath("sudo")
		if err != nil {
			return execute.Errorf(events.Permission, "the %s operation needs root, and there is no sudo on this machine", o.Name)
		}
		h.sudo.once.Do(func() {
			check := exec.CommandContext(ctx, sudo, "-n", "true")
			check.Env = h.Env
			check.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if check.Run() != nil {
				h.sudo.err = errSudo
			}
		})
		if h.sudo.err != nil {
			return h.sudo.err
		}
		shell = []string{sudo, "-n", "/bin/sh"}
	}
	viaSudo := o.Privilege != plan.Login && os.Geteuid() != 0
	script := ops.Input(o.Script, input...)
	argv := slices.Concat(shell, []string{"-s", "--"}, args)
	var stdin io.Reader
	if o.Payload != nil {
		// A payload (a build's source archive) follows the arguments
		// raw, read as it arrives: the script is on the argv
		// (ops.StreamInvocation).
		argv = slices.Concat(shell, []string{"-c", o.Script, "sh"}, args)
		stdin = ops.StreamInput(input, o.Payload.Reader())
	}
	err := h.runScript(ctx, argv, &execute.Command{Script: script, Timeout: o.Timeout}, stdin, viaSudo)
	var ee *execute.ExitError
	if errors.As(err, &ee) && ee.Status == 1 && viaSudo && isSudoRefusal(ee.Output) {
		return execute.Errorf(events.Permission, "sudo refused: %s", lastLine(ee.Output))
	}
	return err
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	return s[strings.LastIndexByte(s, '\n')+1:]
}

// isSudoRefusal reports whether output ends with sudo's own refusal.
func isSudoRefusal(output string) bool {
	return strings.HasPrefix(lastLine(output), "sudo: ")
}
