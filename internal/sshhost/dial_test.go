package sshhost

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"testing"
	"time"
)

// TestHandshakeGivenUp checks that a pass given up while a host that
// accepted says nothing (its handshake would wait out the whole connect
// timeout) stops waiting at once, with ctx's reason.
func TestHandshakeGivenUp(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close() // silent: reads nothing, writes nothing
		}
	}()
	addr := l.Addr().(*net.TCPAddr)
	cfg := &Config{
		Host: "silent", HostName: "127.0.0.1", Port: addr.Port, User: "u",
		KnownHosts:     []string{filepath.Join(t.TempDir(), "known_hosts")},
		ConnectTimeout: 30,
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err = dial(ctx, cfg, "", newAuth(t.TempDir()), &Client{Config: cfg}, 0)
	var ce *ConnectError
	if !errors.As(err, &ce) || ce.Reason != context.Canceled.Error() {
		t.Fatalf("got %v, want a connect error saying %q", err, context.Canceled)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("the dial took %s: it waited for the handshake's own timeout", d)
	}
}
