package sshhost

import (
	"context"
	"io"
	"time"
)

// ShellResult is how a session Shell started ended: Err set (the connection
// dropped, the session couldn't start, ctx ended) or else Status, with the
// tails of what it printed. TimedOut says the limit ended it.
type ShellResult struct {
	Status         int
	Stdout, Stderr string
	TimedOut       bool
	Err            error
}

// Shell runs command (a constant such as "sh" or "sudo -n sh", nothing of
// the operator's on it) in a session of its own on the connection, with
// stdin streamed to it, under limit (0 for none). zap deploy runs its
// scripts this way, each handed to the shell on stdin.
func (c *Client) Shell(ctx context.Context, command string, stdin io.Reader, limit time.Duration) ShellResult {
	r := c.sessionTo(ctx, command, stdin, limit, nil)
	return ShellResult{Status: r.status, Stdout: r.stdout, Stderr: r.stderr, TimedOut: r.timedOut, Err: r.err}
}
