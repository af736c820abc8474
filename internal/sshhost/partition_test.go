package sshhost_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
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
		go f.relay(c, s)
		go f.relay(s, c)
	}
}

// relay copies from src to dst until either closes, holding every chunk
// read once the freezer is frozen.
func (f *freezer) relay(src, dst net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			f.mu.Lock()
			frozen := f.frozen
			f.mu.Unlock()
			if frozen {
				<-f.thawed
				return
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
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

// TestPipelineNoStepAfterAPartition cuts the network (every byte held both
// ways, sshd and the driver alive on the target) while a batch's first step
// runs. The step finishes on the target, but its end line never reaches
// the operator, which reports it as the step whose connection dropped: so
// no later step may run, though the driver outlives the partition. The
// operator sends an operation's step, and any step after it, only once the
// one before it has ended (puts, dirs and links between operations are
// written ahead, within a window: TestConnectionCutAt20RandomMoments), so
// the driver holds nothing to go on with.
func TestPipelineNoStepAfterAPartition(t *testing.T) {
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
		login("touch "+d+"/started; sleep 2; touch "+d+"/ended\n", 0),
		login("touch "+d+"/second\n", 0),
		filePut(d+"/third", "no\n"),
	})
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(d + "/started"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first step never started")
		}
	}
	fz.freeze()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(d + "/ended"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first step never ended")
		}
	}
	// What a driver holding the next steps would have run by now.
	time.Sleep(2 * time.Second)
	wantNoFile(t, d+"/second")
	wantNoFile(t, d+"/third")
	fz.cut()
	err = b.Next(ctx)
	if code, _, _ := execute.Classify(err); code != events.Transient {
		t.Fatalf("the first step: %v (%s), want transient (its connection dropped)", err, code)
	}
	b.Close()
	wantNoFile(t, d+"/second")
	wantNoFile(t, d+"/third")
}

// TestPipelineWindowAfterAPartition cuts the network while a batch of
// puts runs, once some have ended (so the window has grown past one step).
// The driver goes on with the puts it was already sent; the operator
// reports the step it waited for as a dropped connection and names how
// many after it had been sent (Unknown): at most the window of 32, and no
// file after those is ever written.
func TestPipelineWindowAfterAPartition(t *testing.T) {
	s := scripttest.StartSSHD(t)
	t.Setenv("PATH", s.Bin+string(filepath.ListSeparator)+os.Getenv("PATH"))
	fz := startFreezer(t, net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port)))
	c, err := sshhost.Dial(context.Background(), sshhost.Target{Host: "127.0.0.1", Port: fz.port(), User: scripttest.TestAccount, Identity: s.Identity}, t.TempDir())
	if err != nil {
		t.Fatalf("connect to the loopback sshd through the relay: %v", err)
	}
	defer c.Close()
	d, err := os.MkdirTemp("", "zap-window-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(d)
	os.Chmod(d, 0o755)
	const n = 300
	name := func(i int) string { return fmt.Sprintf("%s/f%03d", d, i) }
	var steps []execute.BatchStep
	for i := range n {
		steps = append(steps, filePut(name(i), "x\n"))
	}
	ctx := context.Background()
	b := c.Exec().Pipeline(ctx, steps)
	// Next until step 10 ended: the window has a pace by then.
	for i := range 10 {
		if err := b.Next(ctx); err != nil {
			t.Fatalf("put %d: %v", i, err)
		}
	}
	fz.freeze()
	fz.cut()
	failed := -1
	for i := 10; i < n; i++ {
		if err := b.Next(ctx); err != nil {
			if code, _, _ := execute.Classify(err); code != events.Transient {
				t.Fatalf("put %d: %v (%s), want transient (its connection dropped)", i, err, code)
			}
			failed = i
			break
		}
	}
	if failed < 0 {
		t.Skip("skipped: every put ended before the cut reached the relay")
	}
	unknown := b.(execute.Unknowns).Unknown()
	b.Close()
	t.Logf("put %d's connection dropped, %d after it sent", failed, unknown)
	if unknown > 32 {
		t.Fatalf("%d puts were sent ahead of the one in flight, more than the window of 32", unknown)
	}
	for i := range failed {
		if _, err := os.Stat(name(i)); err != nil {
			t.Fatalf("put %d ended ok before the cut, and: %v", i, err)
		}
	}
	for i := failed + unknown + 1; i < n; i++ {
		wantNoFile(t, name(i))
	}
}
