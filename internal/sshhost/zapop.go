package sshhost

import (
	"context"
	"strings"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/pkg/events"
	"github.com/zap-go/zap/pkg/plan"
)

// Op runs one of Zap's other operations (a package install, a service's
// verb, an account's change): the session's command is `sh -s -- [PATH]`,
// the path single-quoted, for a login operation, and `sudo -n sh -s --
// [PATH]` for a root or elevated one (after the run's one sudo check); the
// other arguments and then the script arrive on stdin (ops.Input), so the
// login shell's argv on the host shows none of them. One with a payload (a
// build's source archive) runs as `[sudo -n] sh -c SCRIPT sh [PATH]`
// instead (ops.StreamInvocation), its other arguments framed and then the
// payload's raw bytes on stdin (ops.StreamInput), so no shell on the host
// holds the payload. Past its limit the session is sent SIGKILL and closed.
func (e *Exec) Op(ctx context.Context, o *execute.ZapOp) error {
	args, input := o.Split()
	if o.Privilege != plan.Login {
		if err := e.sudo(ctx); err != nil {
			return err
		}
	}
	if o.Payload != nil {
		// A payload (a build's source archive) follows the arguments
		// raw, read as it arrives: the script is on the argv.
		cmd := streamCommand(o.Script, args)
		if o.Privilege != plan.Login {
			cmd = "sudo -n " + cmd
		}
		return opError(o, e.c.sessionTo(ctx, cmd, ops.StreamInput(input, o.Payload.Reader()), o.Timeout, nil))
	}
	return opError(o, e.c.sessionTo(ctx, opCommand(o, args), strings.NewReader(ops.Input(o.Script, input...)), o.Timeout, nil))
}

// opCommand is the command an operation runs as: `sh -s -- [PATH]`, under
// `sudo -n` unless its privilege is login's.
func opCommand(o *execute.ZapOp, args []string) string {
	if o.Privilege != plan.Login {
		return rootCommand(args)
	}
	return quotedCommand(ops.Invocation, args)
}

// opError is how an operation's session ended, as its step's error.
func opError(o *execute.ZapOp, r sessionResult) error {
	return r.stepError(o.Timeout, func() error {
		if o.Privilege != plan.Login && r.status == 1 && strings.HasPrefix(lastLine(r.stderr), "sudo: ") {
			return execute.Errorf(events.Permission, "sudo refused: %s", strings.TrimPrefix(lastLine(r.stderr), "sudo: "))
		}
		return nil
	})
}
