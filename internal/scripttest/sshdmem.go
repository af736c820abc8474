package scripttest

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/zap-go/zap/internal/proctree"
)

// memWatch is a running `sshd mem start`: the highest VmHWM seen in a
// process the private sshd started, and its name.
type memWatch struct {
	stop chan struct{}
	done chan struct{}
	mu   sync.Mutex
	peak int64 // KiB
	name string
	rds  int // how many times the process tree was read
}

var memWatches sync.Map // *testscript.TestScript -> *memWatch

// memPoll is how often the watch reads the sessions' processes. A shell
// holding a here-document holds it for as long as its command runs, far
// longer than this.
const memPoll = 20 * time.Millisecond

// cmdSSHDMem is `sshd mem start` and `sshd mem stop MAXKIB`: the start
// reads, every memPoll until the stop, the peak resident set (VmHWM) of
// every process descended from the private sshd (each session's sshd,
// shell, sudo and what they start: the target side of a run), and the
// stop logs the highest and the process that had it, and fails when it is
// MAXKIB or more, or when the tree was read fewer than three times.
func cmdSSHDMem(ts *testscript.TestScript, st *sshdState, args []string) {
	switch {
	case len(args) == 1 && args[0] == "start":
		if _, ok := memWatches.Load(ts); ok {
			ts.Fatalf("sshd mem: already started")
		}
		w := &memWatch{stop: make(chan struct{}), done: make(chan struct{})}
		memWatches.Store(ts, w)
		go w.run(st.cmd.Process.Pid)
		ts.Defer(func() { w.end(); memWatches.Delete(ts) })
	case len(args) == 2 && args[0] == "stop":
		max, err := strconv.ParseInt(args[1], 10, 64)
		if err != nil {
			ts.Fatalf("sshd mem stop: %s is not a number of KiB", args[1])
		}
		v, ok := memWatches.LoadAndDelete(ts)
		if !ok {
			ts.Fatalf("sshd mem: not started")
		}
		w := v.(*memWatch)
		w.end()
		ts.Logf("sshd mem: peak %d KiB (%s), over %d reads of the sessions' processes", w.peak, w.name, w.rds)
		if w.rds < 3 {
			ts.Fatalf("sshd mem: read the processes only %d times", w.rds)
		}
		if w.peak >= max {
			ts.Fatalf("sshd mem: %s peaked at %d KiB, not under %d KiB", w.name, w.peak, max)
		}
	default:
		ts.Fatalf("usage: sshd mem start | sshd mem stop MAXKIB")
	}
}

func (w *memWatch) run(root int) {
	defer close(w.done)
	t := time.NewTicker(memPoll)
	defer t.Stop()
	for {
		for _, p := range proctree.Descendants(root) {
			if kb, name, ok := hwm(p); ok {
				w.mu.Lock()
				if kb > w.peak {
					w.peak, w.name = kb, name
				}
				w.mu.Unlock()
			}
		}
		w.rds++
		select {
		case <-w.stop:
			return
		case <-t.C:
		}
	}
}

// end stops the watch, once, and waits for it.
func (w *memWatch) end() {
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
	<-w.done
}

// hwm reads pid's name and VmHWM (KiB) from /proc/PID/status.
func hwm(pid int) (kb int64, name string, ok bool) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ":")
		switch k {
		case "Name":
			name = strings.TrimSpace(v)
		case "VmHWM":
			kb, err = strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			ok = err == nil
		}
	}
	return kb, name + " " + strconv.Itoa(pid), ok
}
