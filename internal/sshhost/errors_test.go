package sshhost

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// authServer is an SSH server on 127.0.0.1 that takes the public key
// accepted, or no key at all when accepted is nil and password is set (a
// server offering password logins only). It returns its address.
func authServer(t *testing.T, accepted ssh.PublicKey, password bool) *net.TCPAddr {
	t.Helper()
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	hostKey, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	conf := &ssh.ServerConfig{}
	if accepted != nil {
		conf.PublicKeyCallback = func(_ ssh.ConnMetadata, k ssh.PublicKey) (*ssh.Permissions, error) {
			if string(k.Marshal()) == string(accepted.Marshal()) {
				return nil, nil
			}
			return nil, errors.New("not this key")
		}
	}
	if password {
		conf.PasswordCallback = func(ssh.ConnMetadata, []byte) (*ssh.Permissions, error) {
			return nil, errors.New("no")
		}
	}
	conf.AddHostKey(hostKey)
	return listenSSH(t, func(c net.Conn) {
		defer c.Close()
		if sc, _, _, err := ssh.NewServerConn(c, conf); err == nil {
			sc.Close()
		}
	})
}

// listenSSH listens on 127.0.0.1 until the test ends, handing each
// connection to serve on a goroutine of its own, and returns the address.
func listenSSH(t *testing.T, serve func(net.Conn)) *net.TCPAddr {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go serve(c)
		}
	}()
	return l.Addr().(*net.TCPAddr)
}

// keyFile writes a new private key to a file in dir and returns its path
// and public key.
func keyFile(t *testing.T, dir string) (string, ssh.PublicKey) {
	t.Helper()
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "id_"+strings.ReplaceAll(t.Name(), "/", "_"))
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return path, s.PublicKey()
}

func dialTest(t *testing.T, host string, port int, identities ...string) error {
	t.Helper()
	cfg := &Config{
		Host: "h", HostName: host, Port: port, User: "deploy",
		IdentityFiles:  identities,
		KnownHosts:     []string{filepath.Join(t.TempDir(), "known_hosts")},
		ConnectTimeout: 20,
	}
	c, err := dial(context.Background(), cfg, "", newAuth(t.TempDir()), &Client{Config: cfg}, 0)
	if err == nil {
		c.Close()
		t.Fatal("the dial succeeded")
	}
	return err
}

// wantKind checks that err is a *ConnectError of kind (errors.Is), saying
// reason, with one hint holding hint.
func wantKind(t *testing.T, err error, kind error, reason, hint string) {
	t.Helper()
	var ce *ConnectError
	if !errors.As(err, &ce) || !errors.Is(err, kind) {
		t.Fatalf("got %T %v, want a ConnectError that is %v", err, err, kind)
	}
	if !strings.Contains(ce.Reason, reason) {
		t.Errorf("reason %q, want it to say %q", ce.Reason, reason)
	}
	if len(ce.Hints) != 1 || !strings.Contains(ce.Hints[0], hint) {
		t.Errorf("hints %q, want one saying %q", ce.Hints, hint)
	}
	for _, other := range []error{ErrUnknownHost, ErrRefused, ErrUnreachable, ErrAuth, ErrHostKeyChanged} {
		if other != kind && errors.Is(err, other) {
			t.Errorf("the error is %v too", other)
		}
	}
}

// TestAuthFailures checks a login the server refuses is ErrAuth, each way
// with its own reason and hint: no key to offer (no agent, no identity
// file), keys offered and none accepted, a server that takes no key.
func TestAuthFailures(t *testing.T) {
	t.Setenv("SSH_AUTH_SOCK", "")
	dir := t.TempDir()
	_, accepted := keyFile(t, dir)
	other, _ := keyFile(t, dir)
	addr := authServer(t, accepted, false)

	err := dialTest(t, "127.0.0.1", addr.Port)
	wantKind(t, err, ErrAuth, "no key to log in to deploy@h with", "ssh-add -l")

	err = dialTest(t, "127.0.0.1", addr.Port, other)
	wantKind(t, err, ErrAuth, "deploy@h accepted none of the 1 key(s) offered", "deploy's ~/.ssh/authorized_keys on h")

	pw := authServer(t, nil, true)
	err = dialTest(t, "127.0.0.1", pw.Port, other)
	wantKind(t, err, ErrAuth, "deploy@h takes no key login (it offers password)", "PubkeyAuthentication yes")
}

// TestNetFailures checks a port nothing listens on is ErrRefused and a name
// under .invalid (which never resolves) ErrUnknownHost, each hint naming
// the host and what to check.
func TestNetFailures(t *testing.T) {
	// A port held bound but not listening refuses connections, and no
	// other process can take it meanwhile.
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	port := sa.(*syscall.SockaddrInet4).Port
	err = dialTest(t, "127.0.0.1", port)
	wantKind(t, err, ErrRefused, "connection refused", "check that sshd runs on 127.0.0.1 and listens on port")

	err = dialTest(t, "zap-sshhost-test.invalid", 22)
	wantKind(t, err, ErrUnknownHost, "zap-sshhost-test.invalid", `check the host name "zap-sshhost-test.invalid"`)
}

// TestUnreachable checks a host that doesn't answer within the connect
// timeout, or has no route, is ErrUnreachable. Whether a given address
// drops, refuses or has no route depends on the network, so the errors are
// made here: a dial whose deadline has passed (the net package's own
// timeout) and a connect that found no route.
func TestUnreachable(t *testing.T) {
	cfg := &Config{Host: "h", HostName: "192.0.2.1", Port: 22}
	ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	_, timeout := (&net.Dialer{}).DialContext(ctx, "tcp", "192.0.2.1:22")
	noRoute := &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 22}, Err: os.NewSyscallError("connect", syscall.EHOSTUNREACH)}
	for _, err := range []error{timeout, noRoute} {
		wantKind(t, netError(err, cfg), ErrUnreachable, "192.0.2.1:22", "check that 192.0.2.1 is up and reachable from here, and that no firewall drops port 22")
	}
}
