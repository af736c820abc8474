package execute

import (
	"context"
	"sync"

	"github.com/zap-go/zap/internal/mask"
)

// OutputLimit is how much of a command's output an event carries: the last
// 64 KiB.
const OutputLimit = 64 << 10

// Tail is an io.Writer that keeps the last Limit bytes written to it. It is
// safe for concurrent use.
//
// A Tail made with a Masker (OutputTail) masks the stream before it cuts
// it: every secret is replaced whole as it passes, holding back only what
// could still begin one, so the cut never falls inside a secret and what is
// kept holds no part of one, wherever the cut falls.
type Tail struct {
	Limit int
	mu    sync.Mutex
	buf   []byte
	cut   bool
	mw    *mask.Writer // nil: kept as written
}

// NewTail returns a Tail that keeps the last limit bytes.
func NewTail(limit int) *Tail { return &Tail{Limit: limit} }

// OutputTail returns the Tail a host keeps a command's output in: the last
// OutputLimit bytes, masked first with the Masker ctx carries (WithMask).
func OutputTail(ctx context.Context) *Tail { return MaskedTail(MaskOf(ctx)) }

// MaskedTail returns a Tail of the last OutputLimit bytes masked with m
// (nil: kept as written).
func MaskedTail(m *mask.Masker) *Tail {
	t := NewTail(OutputLimit)
	if m != nil {
		t.mw = mask.NewWriter(tailKeeper{t}, m)
	}
	return t
}

func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.mw != nil {
		return t.mw.Write(p) // into keep, through tailKeeper
	}
	t.keep(p)
	return len(p), nil
}

// keep appends p to what is kept, dropping the oldest bytes past Limit.
// t.mu is held.
func (t *Tail) keep(p []byte) {
	if len(p) >= t.Limit {
		t.buf = append(t.buf[:0], p[len(p)-t.Limit:]...)
		t.cut = true
		return
	}
	if over := len(t.buf) + len(p) - t.Limit; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.cut = true
	}
	t.buf = append(t.buf, p...)
}

// tailKeeper is the writer a Tail's mask.Writer writes into; the Tail's
// lock is held by the Write that called it.
type tailKeeper struct{ t *Tail }

func (k tailKeeper) Write(p []byte) (int, error) {
	k.t.keep(p)
	return len(p), nil
}

// String returns what is kept: with a Masker, what it held back too,
// masked as the stream's end, and the last Limit bytes of the two.
func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.mw == nil {
		return string(t.buf)
	}
	s := string(t.buf) + string(t.mw.Held())
	if len(s) > t.Limit {
		s = s[len(s)-t.Limit:]
	}
	return s
}

// Cut reports whether earlier bytes were dropped.
func (t *Tail) Cut() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cut
}

// JoinOutput joins a command's stdout and stderr tails, stdout first, and
// keeps the last OutputLimit bytes of the two. Tails a Masker masked
// (OutputTail) may be cut anywhere: they hold no part of a secret.
func JoinOutput(stdout, stderr string) string {
	s := stdout + stderr
	if len(s) > OutputLimit {
		s = s[len(s)-OutputLimit:]
	}
	return s
}

type maskKey struct{}

// WithMask returns ctx carrying m, the Masker a host masks a command's
// output with as it keeps it (OutputTail). Runner.Run sets it.
func WithMask(ctx context.Context, m *mask.Masker) context.Context {
	return context.WithValue(ctx, maskKey{}, m)
}

// MaskOf returns the Masker ctx carries (WithMask), or nil.
func MaskOf(ctx context.Context) *mask.Masker {
	m, _ := ctx.Value(maskKey{}).(*mask.Masker)
	return m
}
