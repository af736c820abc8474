package zapcli

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/zap-go/zap/internal/escape"
)

// liveHosts is the live line of a command over several hosts on a
// terminal: on stderr, one line redrawn in place (\r, erase to its end) as
// each host starts and ends, naming each host not yet printed and where
// it is (waiting for a -j slot, running, done), cut to the terminal's
// width. It is erased before anything else is written and drawn again
// after, so the grouped output stays whole.
type liveHosts struct {
	mu     sync.Mutex
	w      io.Writer
	width  int
	hosts  []*hostRun
	state  []string
	paused bool
	drawn  bool
}

// live is the live line for hosts, nil when stderr isn't a screen or
// under --json.
func (a *app) live(hosts []*hostRun) *liveHosts {
	if a.json != nil {
		return nil
	}
	tty, width, ok := a.statusScreen()
	if !ok {
		return nil
	}
	l := &liveHosts{w: tty, width: width, hosts: hosts, state: make([]string, len(hosts))}
	for i := range l.state {
		l.state[i] = "waiting"
	}
	return l
}

// set is host i's state now.
func (l *liveHosts) set(i int, s string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.state[i] = s
	l.drawLocked()
}

// pause erases the line and keeps it erased until resume: what is written
// meanwhile (a host's group, the question) owns the terminal.
func (l *liveHosts) pause() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.paused = true
	if l.drawn {
		fmt.Fprint(l.w, "\r\x1b[K")
		l.drawn = false
	}
}

// resume draws the line again.
func (l *liveHosts) resume() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.paused = false
	l.drawLocked()
}

// done erases the line for good.
func (l *liveHosts) done() {
	l.pause()
}

func (l *liveHosts) drawLocked() {
	if l.paused {
		return
	}
	var parts []string
	for i, h := range l.hosts {
		if l.state[i] != "" {
			parts = append(parts, escape.Line(h.label)+" "+l.state[i])
		}
	}
	line := "  " + strings.Join(parts, " · ")
	if r := []rune(line); l.width > 1 && len(r) > l.width-1 {
		line = string(r[:l.width-2]) + "…"
	}
	fmt.Fprint(l.w, "\r"+line+"\x1b[K")
	l.drawn = true
}
