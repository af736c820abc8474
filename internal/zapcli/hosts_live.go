package zapcli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/zap-go/zap/internal/escape"
)

// maxLiveLines bounds the live block: the hosts past it are counted on
// one line of their own.
const maxLiveLines = 20

// The states a host's live line names.
const (
	liveStart   = "starting"
	liveSlot    = "waiting for a slot"
	liveRunning = "running"
	liveOthers  = "planned, waiting for the other hosts' plans"
	liveSkipped = "not started (--fail-fast)"
)

// liveHosts is the live block of a command over several hosts on a
// terminal: on stderr, one line per host not yet printed, saying where it
// is (starting, waiting for a -j slot, running, planned and
// waiting for the other hosts, done with its exit code), each cut to the terminal's width,
// redrawn in place (the cursor moved up over the block) as any host's
// state changes. It is erased before anything else is written and drawn
// again after, so the grouped output stays whole and the block sits
// under it.
type liveHosts struct {
	mu     sync.Mutex
	w      io.Writer
	width  int
	height int
	hosts  []*hostRun
	state  []string
	// printed is how many hosts, from the first, have had their output
	// printed: they leave the block.
	printed int
	paused  bool
	// drawn is how many lines of the block are on the screen, the cursor
	// at the start of the line under them.
	drawn int
}

// live is the live block for hosts, nil when stderr isn't a screen or
// under --json.
func (a *app) live(hosts []*hostRun) *liveHosts {
	if a.json != nil {
		return nil
	}
	tty, width, ok := a.statusScreen()
	if !ok {
		return nil
	}
	l := &liveHosts{w: tty, width: width, height: screenRows(tty), hosts: hosts, state: make([]string, len(hosts))}
	for i := range l.state {
		l.state[i] = liveStart
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

// pause erases the block and keeps it erased until resume: what is
// written meanwhile (a host's group, the question) owns the terminal.
func (l *liveHosts) pause() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.paused = true
	l.eraseLocked()
}

// resume draws the block again.
func (l *liveHosts) resume() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.paused = false
	l.drawLocked()
}

// printedHosts is how many hosts, from the first, have had their output
// printed: they leave the block.
func (l *liveHosts) printedHosts(n int) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.printed = n
}

// done erases the block for good.
func (l *liveHosts) done() {
	l.pause()
}

func (l *liveHosts) eraseLocked() {
	if l.drawn > 0 {
		fmt.Fprintf(l.w, "\x1b[%dA\r\x1b[J", l.drawn)
		l.drawn = 0
	}
}

// lines is the block as it stands: a line per host not yet printed, at
// most as many as fit (maxLiveLines, and a line short of the terminal's
// height), the hosts past them counted on the last.
func (l *liveHosts) lines() []string {
	rest := l.hosts[l.printed:]
	room := maxLiveLines
	if l.height > 2 {
		room = min(room, l.height-1)
	}
	shown := rest
	if len(rest) > room {
		shown = rest[:room-1]
	}
	labels := make([]string, len(shown))
	width := 0
	for i, h := range shown {
		labels[i] = escape.Line(h.label)
		width = max(width, len([]rune(labels[i])))
	}
	var out []string
	for i := range shown {
		pad := strings.Repeat(" ", width-len([]rune(labels[i])))
		out = append(out, "  "+labels[i]+pad+"  "+l.state[l.printed+i])
	}
	if len(shown) < len(rest) {
		out = append(out, fmt.Sprintf("  … and %d more host(s)", len(rest)-len(shown)))
	}
	return out
}

func (l *liveHosts) drawLocked() {
	if l.paused {
		return
	}
	var b strings.Builder
	if l.drawn > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", l.drawn)
	}
	lines := l.lines()
	for _, line := range lines {
		if r := []rune(line); l.width > 1 && len(r) > l.width-1 {
			line = string(r[:l.width-2]) + "…"
		}
		b.WriteString("\r" + line + "\x1b[K\n")
	}
	if len(lines) < l.drawn {
		b.WriteString("\r\x1b[J")
	}
	io.WriteString(l.w, b.String())
	l.drawn = len(lines)
}

// screenRows is the terminal's height in lines, 0 when it doesn't say.
func screenRows(f *os.File) int {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Row)
}
