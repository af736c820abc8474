package mask

import (
	"io"
	"sync"
)

// Writer masks what is written through it before passing it on to the
// underlying writer. It holds back a tail that could still begin a form
// until more bytes decide it or Close flushes it. Writes may come from
// several goroutines.
type Writer struct {
	mu      sync.Mutex
	m       *Masker
	w       io.Writer
	pending []byte
	err     error
}

// NewWriter returns a Writer masking with m into w.
func NewWriter(w io.Writer, m *Masker) *Writer {
	return &Writer{m: m, w: w}
}

// Write masks p and writes what is decided. It reports len(p) unless the
// underlying writer failed, whose error it then keeps returning.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return 0, w.err
	}
	if w.m == nil || w.m.maxLen == 0 {
		if _, err := w.w.Write(p); err != nil {
			w.err = err
			return 0, err
		}
		return len(p), nil
	}
	w.pending = append(w.pending, p...)
	out, n := w.m.mask(nil, string(w.pending), false)
	w.pending = append(w.pending[:0], w.pending[n:]...)
	if len(out) > 0 {
		if _, err := w.w.Write(out); err != nil {
			w.err = err
			return 0, err
		}
	}
	return len(p), nil
}

// Held returns the held-back tail masked as Close would write it, without
// writing it: what a reader of the stream so far is owed beyond what was
// written.
func (w *Writer) Held() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.pending) == 0 {
		return nil
	}
	out, _ := w.m.mask(nil, string(w.pending), true)
	return out
}

// Close masks and writes the held-back tail. It doesn't close the underlying
// writer. Writing after Close starts a new stream.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil || len(w.pending) == 0 {
		return w.err
	}
	out, _ := w.m.mask(nil, string(w.pending), true)
	w.pending = w.pending[:0]
	if _, err := w.w.Write(out); err != nil {
		w.err = err
	}
	return w.err
}
