package execute

import "sync"

// OutputLimit is how much of a command's output an event carries: the last
// 64 KiB.
const OutputLimit = 64 << 10

// Tail is an io.Writer that keeps the last Limit bytes written to it. It is
// safe for concurrent use.
type Tail struct {
	Limit int
	mu    sync.Mutex
	buf   []byte
	cut   bool
}

// NewTail returns a Tail that keeps the last limit bytes.
func NewTail(limit int) *Tail { return &Tail{Limit: limit} }

func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if len(p) >= t.Limit {
		t.buf = append(t.buf[:0], p[len(p)-t.Limit:]...)
		t.cut = true
		return n, nil
	}
	if over := len(t.buf) + len(p) - t.Limit; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.cut = true
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

// String returns what is kept.
func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// Cut reports whether earlier bytes were dropped.
func (t *Tail) Cut() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cut
}

// JoinOutput joins a command's stdout and stderr tails, stdout first, and
// keeps the last OutputLimit bytes of the two.
func JoinOutput(stdout, stderr string) string {
	s := stdout + stderr
	if len(s) > OutputLimit {
		s = s[len(s)-OutputLimit:]
	}
	return s
}
