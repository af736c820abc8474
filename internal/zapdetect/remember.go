package zapdetect

import (
	"bytes"
	"io"
	"os"

	"github.com/zap-go/zap/internal/fetch"
	"github.com/zap-go/zap/internal/state"
)

// remember is detect.Env.Remember: bytes a remote file's read-back found
// on the target, which hashed to pin, go into the operator's content cache,
// so the next pass compares the target's SHA-512 instead of reading them
// back. Best effort: a cache that can't take them (no state directory, one
// that isn't private) leaves the next pass reading them back again.
func remember(pin string, data []byte) {
	st, err := state.Open(os.Getenv)
	if err != nil {
		return
	}
	e, err := fetch.NewCache(st.ContentCache()).Add(bytes.NewReader(data), pin, int64(len(data)))
	if err == nil {
		e.Close()
	}
}

// cached is detect.Env.Cached: the pinned bytes the operator's content
// cache holds, at most limit+1 of them (an entry is hashed again as it is
// opened, so they are the pin's); false when it holds none.
func cached(pin string, limit int) ([]byte, bool) {
	st, err := state.Open(os.Getenv)
	if err != nil {
		return nil, false
	}
	e, err := fetch.NewCache(st.ContentCache()).Open(pin)
	if err != nil {
		return nil, false
	}
	defer e.Close()
	b, err := io.ReadAll(io.LimitReader(e.File, int64(limit)+1))
	if err != nil {
		return nil, false
	}
	return b, true
}
