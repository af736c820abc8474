package sshhost_test

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/scripttest"
	"github.com/zap-go/zap/internal/sshhost"
	"github.com/zap-go/zap/pkg/events"
)

// freezer is a TCP relay to an sshd that can stop carrying bytes, both
// ways, while both its connections stay open: a network that drops every
// packet, as a partition does, with sshd and the session on the target
// alive. cut closes what it relays.
type freezer struct {
	l      net.Listener
	to     string
	mu     sync.Mutex
	frozen bool
	conns  []net.Conn
	thawed chan struct{} // closed by cut
	up     atomic.Int64  // the bytes carried to sshd
}

func startFreezer(t *testing.T, to string) *freezer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &freezer{l: l, to: to, thawed: make(chan struct{})}
	t.Cleanup(f.cut)
	go f.serve()
	return f
}

func (f *freezer) port() int { return f.l.Addr().(*net.TCPAddr).Port }

func (f *freezer) serve() {
	for {
		c, err := f.l.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", f.to)
		if err != nil {
			c.Close()
			continue
		}
		f.mu.Lock()
		f.conns = append(f.conns, c, s)
		f.mu.Unlock()
		go f.relay(c, s, &f.up)
		go f.relay(s, c, nil)
	}
}

// relay copies from src to dst until either closes, holding every chunk
// read once the freezer is frozen, and counting what it carried in
// carried (nil: not counted).
func (f *freezer) relay(src, dst net.Conn, carried *atomic.Int64) {
	buf := make([]byte, 32<<10)
	for {
		k, err := src.Read(buf)
		if k > 0 {
			f.mu.Lock()
			frozen := f.frozen
			f.mu.Unlock()
			if frozen {
				<-f.thawed
				return
			}
			if _, werr := dst.Write(buf[:k]); werr != nil {
				return
			}
			if carried != nil {
				carried.Add(int64(k))
			}
		}
		if err != nil {
			if err != io.EOF {
				return
			}
			dst.(*net.TCPConn).CloseWrite()
			return
		}
	}
}

func (f *freezer) freeze() {
	f.mu.Lock()
	f.frozen = true
	f.mu.Unlock()
}

func (f *freezer) cut() {
	f.mu.Lock()
	defer f.mu.Unlock()
	select {
	case <-f.thawed:
		return
	default:
	}
	close(f.thawed)
	f.l.Close()
	for _, c := range f.conns {
		c.Close()
	}
}

// quiet waits until the freezer has carried nothing more to sshd for half
// a second: the operator has written all it will until it hears back.
func (f *freezer) quiet(t *testing.T) {
	t.Helper()
	last, since := f.up.Load(), time.Now()
	for deadline := time.Now().Add(time.Minute); time.Since(since) < 500*time.Millisecond; time.Sleep(20 * time.Millisecond) {
		if n := f.up.Load(); n != last {
			last, since = n, time.Now()
		}
		if time.Now().After(deadline) {
			t.Fatal("the operator never stopped writing")
		}
	}
}

// TestPipelineStepsAheadOfAPartition cuts the network (every byte held
// both ways, sshd and the driver alive on the target) while a batch's
// first step runs. The operator wrote the second step before the first
// ended, so the target never waits a round trip between them; the third
// it holds back (no more steps go ahead than hide a round trip, two before
// any has ended). So the driver runs the second once the first ends,
// while the operator, hearing nothing, reports the first as its dropped
// connection and says the second may have run (Unsure); the third never
// reached the target and doesn't run.
func TestPipelineStepsAheadOfAPartition(t *testing.T) {
	s := scripttest.StartSSHD(t)
	t.Setenv("PATH", s.Bin+string(filepath.ListSeparator)+os.Getenv("PATH"))
	fz := startFreezer(t, net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port)))
	c, err := sshhost.Dial(context.Background(), sshhost.Target{Host: "127.0.0.1", Port: fz.port(), User: scripttest.TestAccount, Identity: s.Identity}, t.TempDir())
	if err != nil {
		t.Fatalf("connect to the loopback sshd through the relay: %v", err)
	}
	defer c.Close()
	// Under /tmp itself: the test account must reach it.
	d, err := os.MkdirTemp("", "zap-partition-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(d)
	os.Chmod(d, 0o777)
	ctx := context.Background()
	b := c.Exec().Pipeline(ctx, []execute.BatchStep{
		login("touch "+d+"/started; while [ ! -e "+d+"/go ]; do sleep 0.05; done; touch "+d+"/ended\n", 0),
		login("touch "+d+"/second\n", 0),
		filePut(d+"/third", "no\n"),
	})
	waitFile(t, d+"/started")
	fz.quiet(t)
	fz.freeze()
	if err := os.WriteFile(d+"/go", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	waitFile(t, d+"/ended")
	// The second step was on the target before the network went.
	waitFile(t, d+"/second")
	fz.cut()
	err = b.Next(ctx)
	if code, _, _ := execute.Classify(err); code != events.Transient {
		t.Fatalf("the first step: %v (%s), want transient (its connection dropped)", err, code)
	}
	b.Close()
	if n := b.Unsure(); n != 1 {
		t.Fatalf("Unsure() = %d, want 1: the second step was sent and may have run", n)
	}
	wantNoFile(t, d+"/third")
}

// waitFile waits up to a minute for path to be there.
func waitFile(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never appeared", path)
		}
	}
}
