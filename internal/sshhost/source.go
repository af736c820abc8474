package sshhost

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/internal/target"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/events"
)

var _ execute.SourceReader = (*Exec)(nil)

// ReadSource reads a put's source file as root (each error says what is
// wrong with it, for "the source PATH ..."): the read operation's
// script (internal/ops read.sh) under sudo, its bytes on the session's
// stdout, kept up to one byte past execute.SourceLimit.
func (e *Exec) ReadSource(ctx context.Context, path string) ([]byte, error) {
	if err := e.sudo(ctx); err != nil {
		return nil, fmt.Errorf("can't be read: %w", err)
	}
	input, err := target.ReadInput()
	if err != nil {
		return nil, err
	}
	// The path on the argv, the limit on stdin (ops.Input).
	cmd := "sudo -n " + ops.Invocation + " " + vocab.Quote(path)
	s, err := e.c.client.NewSession()
	if err != nil {
		return nil, execute.Errorf(events.Transient, "can't be read: the connection to %s is gone: %v", e.c.Config.Host, err)
	}
	defer s.Close()
	var out execute.SourceBuffer
	stderr := execute.OutputTail(ctx)
	s.Stdout, s.Stderr, s.Stdin = &out, stderr, strings.NewReader(input)
	if err := s.Start(cmd); err != nil {
		return nil, execute.Errorf(events.Transient, "can't be read: start a session on %s: %v", e.c.Config.Host, err)
	}
	waited := make(chan error, 1)
	go func() { waited <- s.Wait() }()
	t := time.NewTimer(target.ReadLimit)
	defer t.Stop()
	select {
	case err = <-waited:
	case <-t.C:
		s.Signal(ssh.SIGKILL)
		s.Close()
		<-waited
		return nil, execute.Errorf(events.Transient, "can't be read: the read timed out after %s", target.ReadLimit)
	case <-ctx.Done():
		s.Signal(ssh.SIGKILL)
		s.Close()
		<-waited
		return nil, fmt.Errorf("can't be read: interrupted: %w", ctx.Err())
	}
	var ee *ssh.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.Signal() == "":
		return nil, execute.ReadFailed(ee.ExitStatus(), stderr.String())
	case errors.Is(err, io.EOF), errors.As(err, new(*ssh.ExitMissingError)):
		return nil, execute.Errorf(events.Transient, "can't be read: the connection to %s dropped before the read ended", e.c.Config.Host)
	default:
		return nil, execute.Errorf(events.Transient, "can't be read: the read on %s ended with no exit status: %v", e.c.Config.Host, err)
	}
	return out.Source()
}
