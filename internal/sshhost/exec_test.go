package sshhost

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha512"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/pkg/events"
)

// fakeServer is an SSH server that answers each exec request by the
// command's first word: reply returns what to print on stderr and the exit
// status, or drop to close the channel with no status.
type fakeServer struct {
	mu       sync.Mutex
	commands []string
	stdins   []string
	reply    func(cmd string) (stderr string, status int, drop bool)
	// stdout, when set, is what a command prints on stdout, given its
	// stdin.
	stdout func(cmd, stdin string) string
}

func (f *fakeServer) dial(t *testing.T) *Client {
	t.Helper()
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	conf := &ssh.ServerConfig{NoClientAuth: true}
	conf.AddHostKey(signer)
	addr := listenSSH(t, func(c net.Conn) { f.serve(c, conf) })
	sc, err := ssh.Dial("tcp", addr.String(), &ssh.ClientConfig{User: "u", HostKeyCallback: ssh.InsecureIgnoreHostKey()})
	if err != nil {
		t.Fatal(err)
	}
	c := &Client{Config: &Config{Host: "fake"}, client: sc}
	t.Cleanup(func() { c.Close() })
	return c
}

func (f *fakeServer) serve(c net.Conn, conf *ssh.ServerConfig) {
	_, chans, reqs, err := ssh.NewServerConn(c, conf)
	if err != nil {
		return
	}
	go ssh.DiscardRequests(reqs)
	for nc := range chans {
		ch, reqs, err := nc.Accept()
		if err != nil {
			return
		}
		go func() {
			for r := range reqs {
				if r.Type != "exec" {
					r.Reply(false, nil)
					continue
				}
				r.Reply(true, nil)
				n := binary.BigEndian.Uint32(r.Payload)
				cmd := string(r.Payload[4 : 4+n])
				in, _ := io.ReadAll(ch)
				f.mu.Lock()
				f.commands = append(f.commands, cmd)
				f.stdins = append(f.stdins, string(in))
				f.mu.Unlock()
				stderr, status, drop := f.reply(cmd)
				if drop {
					c.Close()
					return
				}
				if f.stdout != nil {
					ch.Write([]byte(f.stdout(cmd, string(in))))
				}
				ch.Stderr().Write([]byte(stderr))
				ch.SendRequest("exit-status", false, binary.BigEndian.AppendUint32(nil, uint32(status)))
				ch.Close()
				return
			}
		}()
	}
}

func wantCoded(t *testing.T, err error, code events.Code, msg string) {
	t.Helper()
	var ce *execute.CodedError
	if !errors.As(err, &ce) || ce.Code != code || ce.Error() != msg {
		t.Fatalf("got %#v (%v), want %s %q", err, err, code, msg)
	}
}

// TestSudoRefusedOnce checks that a sudo that won't authenticate fails
// every operation with the fixed reason, as permission, having asked once.
func TestSudoRefusedOnce(t *testing.T) {
	f := &fakeServer{reply: func(cmd string) (string, int, bool) { return "sudo: a password is required\n", 1, false }}
	e := f.dial(t).Exec()
	ctx := context.Background()
	wantCoded(t, e.Dir(ctx, &execute.Dir{Path: "/x"}), events.Permission, "sudo authentication failed")
	wantCoded(t, e.Link(ctx, &execute.Link{Path: "/x", Target: "y"}), events.Permission, "sudo authentication failed")
	if len(f.commands) != 1 || f.commands[0] != "sudo -n true" {
		t.Fatalf("commands %q", f.commands)
	}
}

// TestOpCommandAndCodes checks the command an operation runs as (only the
// path, mode, owner and group on it), that the other arguments and the
// script arrive on stdin, and how its failures are classified.
func TestOpCommandAndCodes(t *testing.T) {
	var status int
	var stderr string
	f := &fakeServer{reply: func(cmd string) (string, int, bool) {
		if cmd == "sudo -n true" {
			return "", 0, false
		}
		return stderr, status, false
	}}
	e := f.dial(t).Exec()
	ctx := context.Background()
	if err := e.Put(ctx, &execute.Put{Path: "/etc/it's", Content: []byte("hi\n"), SHA512: "abc", Mode: "644"}); err != nil {
		t.Fatal(err)
	}
	if got := f.commands[1]; got != `sudo -n sh -s -- '/etc/it'\''s' '644' '' ''` {
		t.Fatalf("command %q", got)
	}
	// Text content comes quoted on the line after the arguments, and the
	// here-document after the script is empty.
	if in := f.stdins[1]; !strings.HasPrefix(in, `set -- "$@" 'abc' '3'`+"\nzap_text='hi\n'\n# zap put") ||
		!strings.HasSuffix(in, "<<'__zap_content_end__'\n__zap_content_end__\n") {
		t.Fatalf("stdin %q", in)
	}
	if err := e.Link(ctx, &execute.Link{Path: "/etc/l", Target: "it's"}); err != nil {
		t.Fatal(err)
	}
	if got, in := f.commands[2], f.stdins[2]; got != `sudo -n sh -s -- '/etc/l'` || !strings.HasPrefix(in, `set -- "$@" 'it'\''s'`+"\n# zap link") {
		t.Fatalf("the link: command %q, stdin %.40q", got, in)
	}
	for _, tc := range []struct {
		status int
		stderr string
		code   events.Code
		msg    string
	}{
		{94, "zap dir: /x is a symbolic link\n", events.Conflict, "/x is a symbolic link"},
		{93, "zap dir: 1 bytes of 3 arrived\n", events.Permanent, "1 bytes of 3 arrived"},
		{1, "chown: invalid user: 'nobody-here'\n", events.NotFound, "chown: invalid user: 'nobody-here'"},
		{1, "mkdir: cannot create directory '/x': Permission denied\n", events.Permission, "mkdir: cannot create directory '/x': Permission denied"},
		{1, "sudo: a password is required\n", events.Permission, "sudo refused: a password is required"},
		{2, "", events.Permanent, "the dir script exited 2"},
	} {
		status, stderr = tc.status, tc.stderr
		wantCoded(t, e.Dir(ctx, &execute.Dir{Path: "/x"}), tc.code, tc.msg)
	}
}

// TestDroppedConnection checks that a session ending with no exit status
// is transient, and a command past its limit a timeout.
func TestDroppedConnection(t *testing.T) {
	f := &fakeServer{reply: func(cmd string) (string, int, bool) { return "", 0, true }}
	e := f.dial(t).Exec()
	err := e.Run(context.Background(), &execute.Command{Script: "true\n"})
	if code, _, _ := execute.Classify(err); code != events.Transient || !strings.Contains(err.Error(), "the connection to fake") {
		t.Fatalf("got %v (%s)", err, code)
	}
}

func TestRunStatusAndTimeout(t *testing.T) {
	block := make(chan struct{})
	t.Cleanup(func() { close(block) })
	f := &fakeServer{reply: func(cmd string) (string, int, bool) {
		if cmd == "sh" {
			return "boom\n", 3, false
		}
		<-block
		return "", 0, false
	}}
	e := f.dial(t).Exec()
	err := e.Run(context.Background(), &execute.Command{Script: "exit 3\n"})
	var ee *execute.ExitError
	if !errors.As(err, &ee) || ee.Status != 3 || ee.Output != "boom\n" || f.commands[0] != "sh" || f.stdins[0] != "exit 3\n" {
		t.Fatalf("got %#v, commands %q", err, f.commands)
	}
	// A session the server never ends runs into its limit.
	r := e.c.session(context.Background(), "hang", nil, 50*time.Millisecond)
	if !r.timedOut {
		t.Fatalf("got %+v", r)
	}
}

// TestValidatedPut checks a put with a validate check over SSH: the put
// script snapshots the old file before it writes, the check runs as the
// connecting user, and a failed check puts the old bytes back with their
// owner, group and mode (less a set-id bit the declared mode doesn't carry)
// through a second put with numeric ids.
func TestValidatedPut(t *testing.T) {
	old := "old\x00bytes"
	f := &fakeServer{
		reply: func(cmd string) (string, int, bool) {
			if cmd == "sh" {
				return "bad config\n", 3, false
			}
			return "", 0, false
		},
		stdout: func(cmd, stdin string) string {
			if strings.HasPrefix(stdin, `set -- "$@" 'abc' '4' 'snapshot'`+"\n") {
				return "zap-snapshot 4640 4321 4322\n" + old
			}
			return ""
		},
	}
	e := f.dial(t).Exec()
	err := e.Put(context.Background(), &execute.Put{Path: "/etc/app.conf", Content: []byte("new\n"), SHA512: "abc", Mode: "644", Validate: &execute.Command{Script: "app -t\n"}})
	var ee *execute.ExitError
	if !errors.As(err, &ee) || ee.Status != 3 || !strings.Contains(err.Error(), "the old file is back") {
		t.Fatalf("got %v, want the check's exit 3 and the old file back", err)
	}
	if len(f.commands) != 4 {
		t.Fatalf("commands %q", f.commands)
	}
	if got := f.commands[1]; got != `sudo -n sh -s -- '/etc/app.conf' '644' '' ''` {
		t.Fatalf("the write: %q", got)
	}
	if f.commands[2] != "sh" || f.stdins[2] != "app -t\n" {
		t.Fatalf("the check: %q %q", f.commands[2], f.stdins[2])
	}
	sum := sha512.Sum512([]byte(old))
	if got, want := f.commands[3], `sudo -n sh -s -- '/etc/app.conf' '640' '4321' '4322'`; got != want {
		t.Fatalf("the restore: %q, want %q", got, want)
	}
	if in, want := f.stdins[3], fmt.Sprintf(`set -- "$@" '%x' '%d'`+"\n", sum, len(old)); !strings.HasPrefix(in, want) {
		t.Fatalf("the restore's stdin begins %.80q, want %q", in, want)
	}
	if in := f.stdins[3]; !strings.Contains(in, base64.StdEncoding.EncodeToString([]byte(old))+"\n__zap_content_end__\n") {
		t.Fatalf("the restore's stdin doesn't carry the old bytes: %q", in[len(in)-80:])
	}

	// A file that wasn't there is removed.
	f2 := &fakeServer{
		reply: f.reply,
		stdout: func(cmd, stdin string) string {
			if strings.HasPrefix(stdin, `set -- "$@" 'abc' '4' 'snapshot'`+"\n") {
				return "zap-snapshot none\n"
			}
			return ""
		},
	}
	e = f2.dial(t).Exec()
	err = e.Put(context.Background(), &execute.Put{Path: "/etc/app.conf", Content: []byte("new\n"), SHA512: "abc", Validate: &execute.Command{Script: "app -t\n"}})
	if err == nil || !strings.Contains(err.Error(), "the new file is removed") || !strings.Contains(strings.SplitN(f2.stdins[3], "\n", 2)[0], " 'remove'") {
		t.Fatalf("got %v, commands %q", err, f2.commands)
	}
}

// A command run under a LiveLine (execute.WithLive) tees its output into
// it: its last line is there, and the step's result is as without it.
func TestRunFollowedLive(t *testing.T) {
	f := &fakeServer{reply: func(cmd string) (string, int, bool) {
		return "working 1\nworking 2\n", 4, false
	}}
	e := f.dial(t).Exec()
	l := &execute.LiveLine{}
	err := e.Run(execute.WithLive(context.Background(), l), &execute.Command{Script: "exit 4\n"})
	var ee *execute.ExitError
	if !errors.As(err, &ee) || ee.Status != 4 || ee.Output != "working 1\nworking 2\n" {
		t.Fatalf("got %#v", err)
	}
	if line, _, ok := l.Take(); !ok || line != "working 2" {
		t.Fatalf("the live line is %q, %v", line, ok)
	}
}
