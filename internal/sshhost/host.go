// Package sshhost reaches a remote target over SSH, the way the operator's
// own ssh would, and answers detection batches on it.
//
// Dial reads the operator's effective ssh config once (`ssh -G`, with the
// declared port and user), refuses when every UserKnownHostsFile is
// /dev/null (a changed key could never be noticed), and makes one
// authenticated connection: through any ProxyJump hosts, with the declared
// identity, the agent's keys and the config's identity files, checking the
// host key against known_hosts (a first-seen key is recorded, or refused
// when the config's StrictHostKeyChecking is yes or ask; a changed one
// refused, naming the host and the new key's fingerprint). The connection asks for no terminal and
// forwards nothing (no agent, X11, ports or tunnel), and runs no
// LocalCommand, whatever the config says.
//
// A Client is a detect.Host. Each lane's batch (internal/batch) is one
// session on the one connection, the lanes concurrently, and every session
// runs the command `sh` with its script on stdin: the only command the
// host's sshd ever sees. The root and elevated lanes run their batch under
// the constant wrapper `sudo -n sh`; a sudo that won't authenticate fails the
// lane with the fixed reason "sudo authentication failed". A batch runs
// under its deadline (its probes' limits and a margin) and an output cap of
// 64 MiB; past either, or when the connection drops, the session is killed
// and the lane fails as a whole.
package sshhost

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/zap-go/zap/internal/batch"
	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/observation"
)

// Client is one authenticated connection to a target.
type Client struct {
	Config *Config
	client *ssh.Client
	jumps  []*ssh.Client
}

// Close ends the connection and those to any jump hosts.
func (c *Client) Close() error {
	if c.client != nil {
		c.client.Close()
	}
	for i := len(c.jumps) - 1; i >= 0; i-- {
		c.jumps[i].Close()
	}
	return nil
}

// Answer runs one lane's queries as one batch and parses its answers.
func (c *Client) Answer(ctx context.Context, lane observation.Lane, queries []detect.Query) ([]detect.Answer, error) {
	l, err := newLaneBatch(lane, queries)
	if err != nil {
		return nil, err
	}
	return c.answer(ctx, l)
}

// Connecting is a detect.Host whose connection is still being made: each
// lane's batch is built while it is, and runs on the connection Wait gives
// once it is made. An error from Wait fails the lane with it; Wait is
// called once per lane, concurrently.
type Connecting struct {
	Wait func() (*Client, error)
}

// Answer builds the lane's batch, waits for the connection and runs it.
func (p Connecting) Answer(ctx context.Context, lane observation.Lane, queries []detect.Query) ([]detect.Answer, error) {
	l, err := newLaneBatch(lane, queries)
	if err != nil {
		return nil, err
	}
	c, err := p.Wait()
	if err != nil {
		return nil, err
	}
	return c.answer(ctx, l)
}

// laneBatch is one lane's batch and the script its session's sh reads.
type laneBatch struct {
	b        *batch.Batch
	script   string
	elevated bool
}

func newLaneBatch(lane observation.Lane, queries []detect.Query) (*laneBatch, error) {
	b, err := batch.New(queries)
	if err != nil {
		return nil, err
	}
	l := &laneBatch{b: b, script: b.Script}
	switch lane {
	case observation.LaneLogin:
	case observation.LaneRoot, observation.LaneElevated:
		l.elevated = true
		// The shell parses the whole line, the batch quoted in it, before
		// sudo starts, so sudo's shell reads exactly the batch.
		l.script = "printf '%s' " + vocab.Quote(b.Script) + " | sudo -n sh\n"
	default:
		return nil, fmt.Errorf("unknown lane %q", lane)
	}
	return l, nil
}

// answer runs l on the connection and parses its answers.
func (c *Client) answer(ctx context.Context, l *laneBatch) ([]detect.Answer, error) {
	b := l.b
	out, status, err := c.run(ctx, l.script, b.Deadline())
	if err != nil {
		return nil, err
	}
	answers, perr := b.Parse(out)
	if perr == nil {
		return answers, nil
	}
	started := b.Started(out)
	switch {
	case l.elevated && !started && status == 127:
		return nil, errors.New("the target has no sudo")
	case l.elevated && !started:
		return nil, errors.New("sudo authentication failed")
	case status < 0:
		return nil, errors.New("the connection dropped before the batch ended")
	}
	return nil, perr
}

// run runs script with `sh` in a session of its own and returns its output
// and exit status (-1 when the session ended with none: the connection
// dropped or the shell was killed).
func (c *Client) run(ctx context.Context, script string, deadline time.Duration) ([]byte, int, error) {
	s, err := c.client.NewSession()
	if err != nil {
		return nil, -1, fmt.Errorf("open a session: %w", err)
	}
	defer s.Close()
	s.Stdin = strings.NewReader(script)
	stdout, err := s.StdoutPipe()
	if err != nil {
		return nil, -1, err
	}
	if err := s.Start("sh"); err != nil {
		return nil, -1, fmt.Errorf("start the batch: %w", err)
	}
	type result struct {
		out  []byte
		over bool
		err  error
	}
	read := make(chan result, 1)
	go func() {
		out, err := io.ReadAll(io.LimitReader(stdout, batch.OutputLimit+1))
		r := result{out: out, err: err}
		if len(out) > batch.OutputLimit {
			r.over = true
			r.out = nil
		}
		read <- r
	}()
	timer := time.NewTimer(deadline)
	defer timer.Stop()
	kill := func() {
		s.Signal(ssh.SIGKILL)
		s.Close()
	}
	r, err := await(ctx, read, timer, deadline, kill)
	if err != nil {
		return nil, -1, err
	}
	if r.over {
		kill()
		return nil, -1, fmt.Errorf("the batch's output passed %d MiB", batch.OutputLimit>>20)
	}
	waited := make(chan error, 1)
	go func() { waited <- s.Wait() }()
	werr, err := await(ctx, waited, timer, deadline, kill)
	if err != nil {
		return nil, -1, err
	}
	return r.out, sessionStatus(werr), nil
}

// await waits for what ch brings, or kills the batch's session (kill) when
// it passes its deadline (timer) or the pass is cancelled, and says so.
func await[T any](ctx context.Context, ch <-chan T, timer *time.Timer, deadline time.Duration, kill func()) (T, error) {
	var zero T
	select {
	case v := <-ch:
		return v, nil
	case <-timer.C:
		kill()
		return zero, fmt.Errorf("the batch passed its deadline of %s", deadline)
	case <-ctx.Done():
		kill()
		return zero, errors.New("the pass was cancelled")
	}
}

// sessionStatus is the exit status a session's Wait error carries, -1 when
// it ended with none (a signal, the connection dropped).
func sessionStatus(err error) int {
	var ee *ssh.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee) && ee.Signal() == "":
		return ee.ExitStatus()
	}
	return -1
}
