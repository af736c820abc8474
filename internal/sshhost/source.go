package sshhost

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/events"
	"github.com/zap-go/zap/pkg/plan"
)

var _ execute.SourceReader = (*Exec)(nil)

// ReadLimit bounds a source read: a source that is a fifo swapped in after
// the script's checks holds the open until then.
const ReadLimit = 5 * time.Minute

// ReadSource reads a put's source file as root (each error says what is
// wrong with it, for "the source PATH ..."): the read operation's
// script (internal/ops read.sh) under sudo, its bytes on the session's
// stdout, kept up to one byte past execute.SourceLimit.
func (e *Exec) ReadSource(ctx context.Context, path string) ([]byte, error) {
	if err := e.sudo(ctx); err != nil {
		return nil, fmt.Errorf("can't be read: %w", err)
	}
	script, ok := ops.Script(plan.OpRead)
	if !ok {
		return nil, errors.New("can't be read: this zap has no read script")
	}
	// The path on the argv, the limit on stdin (ops.Input).
	cmd := "sudo -n " + ops.Invocation + " " + vocab.Quote(path)
	s, err := e.c.client.NewSession()
	if err != nil {
		return nil, execute.Errorf(events.Transient, "can't be read: the connection to %s is gone: %v", e.c.Config.Host, err)
	}
	defer s.Close()
	var out execute.SourceBuffer
	stderr := execute.NewTail(execute.OutputLimit)
	s.Stdout, s.Stderr, s.Stdin = &out, stderr, strings.NewReader(ops.Input(script.Text, strconv.Itoa(execute.SourceLimit)))
	if err := s.Start(cmd); err != nil {
		return nil, execute.Errorf(events.Transient, "can't be read: start a session on %s: %v", e.c.Config.Host, err)
	}
	waited := make(chan error, 1)
	go func() { waited <- s.Wait() }()
	t := time.NewTimer(ReadLimit)
	defer t.Stop()
	select {
	case err = <-waited:
	case <-t.C:
		s.Signal(ssh.SIGKILL)
		s.Close()
		<-waited
		return nil, execute.Errorf(events.Transient, "can't be read: the read timed out after %s", ReadLimit)
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
	data, over := out.Bytes()
	if over {
		return nil, execute.Errorf(events.Permanent, "is larger than 16 MiB")
	}
	return data, nil
}
