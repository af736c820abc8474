package sshhost

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/internal/ops/asroot"
	"github.com/zap-go/zap/internal/target"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/events"
	"github.com/zap-go/zap/pkg/plan"
)

// Exec is a Client acting for zap-exec: an execute.Host on the one
// connection of the run.
//
// An operation (put, dir, link) runs its constant script of internal/ops
// under sudo: the session's command is `sudo -n sh -s -- PATH [MODE OWNER
// GROUP]`, each argument single-quoted, and the script arrives on stdin,
// after the arguments no argv shows (ops.Input: a put's digest and length,
// a link's target) and, for a put, with the content (ops.PutScriptInput). A
// put of a Body (a remote file's cached bytes) runs the put-stream script
// as `sudo -n sh -c SCRIPT sh PATH MODE OWNER GROUP` instead, with its other
// arguments framed and then the raw bytes on stdin (ops.StreamInput), so
// no shell on the target holds them as a here-document; an archive to
// extract runs its script the same way. A put with a validate check is
// asroot.ValidatedPut: the put script snapshots the old file as root before it
// writes, the check runs as the connecting user (an operator's command), and
// a failed check puts the old file back with a second put. Before the first operation
// one `sudo -n true` checks that sudo works without a password; a sudo that
// won't is the fixed failure "sudo authentication failed" (permission), and
// every later operation of the run fails the same way without asking again.
//
// A run of such operations (and of the other constant scripts, Op) goes
// through one session for the run instead of one each: see Pipeline.
//
// An operator's command runs as the connecting user: the session's command
// is `sh`, reading execute.Script on stdin, so nothing of it is on an argv.
// Past its limit the session is sent SIGKILL and closed.
//
// A session that ends with no exit status (the connection dropped, sshd
// killed) is transient; an operation script's exit 94 (something in the
// way) a conflict, 93 (the content didn't arrive whole) permanent, and any
// other failure is classified by what the script printed last.
type Exec struct {
	// AsRoot's Root is the Exec itself; its Check runs a validate
	// command as the connecting user (Run).
	target.AsRoot
	c *Client

	mu      sync.Mutex
	checked bool
	sudoErr error

	// cleaned is the run's set of directories its writes cleaned of killed
	// writers' leftovers (Pipeline).
	cleaned cleaned
}

// Exec returns c as an execute.Host.
func (c *Client) Exec() *Exec {
	e := &Exec{c: c}
	e.AsRoot = target.AsRoot{Root: e, Check: e.Run}
	return e
}

var (
	_ execute.Host       = (*Exec)(nil)
	_ asroot.CommandRoot = (*Exec)(nil)
)

// Run runs an operator's command as the connecting user.
func (e *Exec) Run(ctx context.Context, c *execute.Command) error {
	r := e.c.session(ctx, "sh", []byte(c.Script), c.Timeout)
	return r.stepError(c.Timeout, func() error {
		if r.status == execute.CwdStatus && c.Cwd != "" && strings.Contains(r.stderr, "cd") {
			return execute.Errorf(events.NotFound, "can't enter %s: %s", c.Cwd, lastLine(r.stderr))
		}
		return nil
	})
}

// RunOp runs one operation script under sudo (asroot.Root): what it prints on
// stdout is returned, up to a snapshot's size.
func (e *Exec) RunOp(ctx context.Context, name plan.OpName, stdin []byte, args ...string) ([]byte, error) {
	return e.rootSession(ctx, name, rootCommand(args), bytes.NewReader(stdin))
}

// RunOpCommand runs script as `sudo -n sh -c SCRIPT sh ARGS...`, each
// single-quoted, with stdin streamed as it is read (asroot.CommandRoot): a
// remote file or an archive crosses the connection as it is read, never
// held whole.
func (e *Exec) RunOpCommand(ctx context.Context, name plan.OpName, script string, stdin io.Reader, args ...string) ([]byte, error) {
	return e.rootSession(ctx, name, "sudo -n "+streamCommand(script, args), stdin)
}

// streamCommand is the command a streamed script runs as
// (ops.StreamInvocation): `sh -c SCRIPT sh` and args, each single-quoted.
func streamCommand(script string, args []string) string {
	return quotedCommand("sh -c "+vocab.Quote(script)+" sh", args)
}

// rootSession runs command, an operation under sudo, after the run's sudo
// check, and returns what it printed on stdout, up to a snapshot's size.
func (e *Exec) rootSession(ctx context.Context, name plan.OpName, command string, stdin io.Reader) ([]byte, error) {
	if err := e.sudo(ctx); err != nil {
		return nil, err
	}
	var out target.OpOutput
	r := e.c.sessionTo(ctx, command, stdin, 0, &out)
	if out.Over() {
		r.outBytes = overLimit
	}
	if err := rootError(name, r); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// overLimit is more than an operation script's stdout may hold: a
// snapshot and its line.
const overLimit = asroot.SnapshotLimit + 4096 + 1

// rootCommand is the command an operation runs as under sudo: `sudo -n sh
// -s --` and args, each single-quoted.
func rootCommand(args []string) string {
	return quotedCommand("sudo -n "+ops.Invocation, args)
}

// quotedCommand is cmd followed by args, each single-quoted.
func quotedCommand(cmd string, args []string) string {
	var b strings.Builder
	b.WriteString(cmd)
	for _, a := range args {
		b.WriteString(" " + vocab.Quote(a))
	}
	return b.String()
}

// rootError is how a put, dir or link script's session ended, as its
// step's error.
func rootError(name plan.OpName, r sessionResult) error {
	switch {
	case r.err != nil:
		return r.err
	case r.outBytes >= overLimit:
		return target.OverError(name)
	case r.status == 0:
		return nil
	}
	return asroot.Failure(name, r.status, r.stderr)
}

// sudo checks once per run that sudo works without a password.
func (e *Exec) sudo(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.checked {
		return e.sudoErr
	}
	r := e.c.session(ctx, "sudo -n true", nil, sudoCheckLimit)
	switch {
	case r.err != nil:
		return r.err // not checked: a dropped connection says so itself
	case r.timedOut:
		e.sudoErr = execute.Errorf(events.Permission, "sudo authentication failed")
	case r.status == 127:
		e.sudoErr = execute.Errorf(events.Permission, "the target has no sudo")
	case r.status != 0:
		e.sudoErr = execute.Errorf(events.Permission, "sudo authentication failed")
	}
	e.checked = true
	return e.sudoErr
}

// opGrace is how long an operation's script has to end after SIGTERM.
const opGrace = 5 * time.Second

// sudoCheckLimit bounds the sudo check: sudo -n never waits on a prompt.
const sudoCheckLimit = 30 * time.Second

// sessionResult is how a session ended.
type sessionResult struct {
	status         int // the exit status (128+n for a signal n)
	stdout, stderr string
	timedOut       bool
	err            error // no status: the connection dropped, or no session
	// outBytes is how many bytes stdout carried, where they are counted.
	outBytes int64
}

func (r *sessionResult) output() string { return execute.JoinOutput(r.stdout, r.stderr) }

// stepError is how the session of a step run under limit ended, as the
// step's error: a timeout, the session's own failure, nil for exit 0, and
// for another exit status what failed says of it (nil: an *ExitError with
// the status and output).
func (r *sessionResult) stepError(limit time.Duration, failed func() error) error {
	switch {
	case r.timedOut:
		return &execute.TimeoutError{After: limit, Output: r.output()}
	case r.err != nil:
		return r.err
	case r.status == 0:
		return nil
	}
	if err := failed(); err != nil {
		return err
	}
	return &execute.ExitError{Status: r.status, Output: r.output()}
}

// session runs command in a session of its own with stdin, under limit (0
// is none), and keeps the tail of what it prints.
func (c *Client) session(ctx context.Context, command string, stdin []byte, limit time.Duration) sessionResult {
	var in io.Reader
	if stdin != nil {
		in = bytes.NewReader(stdin)
	}
	return c.sessionTo(ctx, command, in, limit, nil)
}

// sessionTo is session with stdout written to stdout (nil: the tail kept).
// With stdout set (an operation under sudo), a session stopped early is sent
// SIGTERM first, which sudo passes on to the script (a SIGKILL would end
// sudo and leave the script running as root), and SIGKILL after opGrace.
func (c *Client) sessionTo(ctx context.Context, command string, stdin io.Reader, limit time.Duration, stdout io.Writer) sessionResult {
	s, err := c.client.NewSession()
	if err != nil {
		return sessionResult{err: execute.Errorf(events.Transient, "the connection to %s is gone: %v", c.Config.Host, err)}
	}
	defer s.Close()
	tail, stderr := execute.OutputTail(ctx), execute.OutputTail(ctx)
	// A running step's last line is followed (execute.WithLive) from the
	// bytes the tails keep; stdout that is data (a snapshot) isn't.
	s.Stdout, s.Stderr = execute.LiveStreams(ctx, tail, stderr)
	if stdout != nil {
		s.Stdout = stdout
	}
	if stdin != nil {
		s.Stdin = stdin
	}
	if err := s.Start(command); err != nil {
		return sessionResult{err: execute.Errorf(events.Transient, "start a session on %s: %v", c.Config.Host, err)}
	}
	waited := make(chan error, 1)
	go func() { waited <- s.Wait() }()
	var timeout <-chan time.Time
	if limit > 0 {
		t := time.NewTimer(limit)
		defer t.Stop()
		timeout = t.C
	}
	kill := func() {
		if stdout != nil {
			s.Signal(ssh.SIGTERM)
			select {
			case <-waited:
				return
			case <-time.After(opGrace):
			}
		}
		s.Signal(ssh.SIGKILL)
		s.Close()
		<-waited
	}
	select {
	case err = <-waited:
	case <-timeout:
		kill()
		return sessionResult{timedOut: true, stdout: tail.String(), stderr: stderr.String()}
	case <-ctx.Done():
		kill()
		return sessionResult{err: fmt.Errorf("interrupted: %w", ctx.Err())}
	}
	r := sessionResult{stdout: tail.String(), stderr: stderr.String()}
	var ee *ssh.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.Signal() == "":
		r.status = ee.ExitStatus()
	case errors.As(err, &ee):
		r.status = 128 + signalNumber(ee.Signal())
	case errors.Is(err, io.EOF), errors.As(err, new(*ssh.ExitMissingError)):
		r.err = execute.Errorf(events.Transient, "the connection to %s dropped before the step ended", c.Config.Host)
	default:
		r.err = execute.Errorf(events.Transient, "the session on %s ended with no exit status: %v", c.Config.Host, err)
	}
	return r
}

// signalNumber is the Linux number of an SSH signal name (0 for one it
// doesn't know).
func signalNumber(name string) int {
	return map[string]int{"HUP": 1, "INT": 2, "QUIT": 3, "ILL": 4, "ABRT": 6, "FPE": 8, "KILL": 9, "USR1": 10, "SEGV": 11, "USR2": 12, "PIPE": 13, "ALRM": 14, "TERM": 15}[name]
}

// lastLine is the last non-empty line of s, trimmed.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
