package zapdetect

import (
	"os"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/fetch"
	"github.com/zap-go/zap/internal/state"
	"github.com/zap-go/zap/pkg/declaration"
)

// pins is where the reads of a resource that fetches find its pin: the
// vendored one (zap.lock's entries: issue 15, to come) and the SHA-512 of
// the pinned bytes from the operator's content cache, which detection
// reads and never fetches into.
type pins struct {
	cache *fetch.Cache // nil: no state directory, nothing cached
}

// newPins opens the content cache under the state directory ($ZAP_HOME or
// ~/.zap). Without a state directory nothing is cached and a pin is
// compared by the target's own bytes.
func newPins() *pins {
	st, err := state.Open(os.Getenv)
	if err != nil {
		return &pins{}
	}
	return &pins{cache: fetch.NewCache(st.ContentCache())}
}

// pin is detect.Env.Pin.
func (p *pins) pin(_ *declaration.Resource, f declaration.Fetched) detect.Pin {
	if f.Blake3 == "" {
		return detect.Pin{Hold: "its pin is tracked in zap.lock, which zap-detect can't read yet"}
	}
	pin := detect.Pin{Blake3: f.Blake3}
	if p.cache == nil {
		return pin
	}
	// An entry that is missing, untrusted or corrupt (Open removes that
	// one) is not cached: the target's own bytes are compared instead.
	if e, err := p.cache.Open(f.Blake3); err == nil {
		pin.SHA512 = e.SHA512
		e.Close()
	}
	return pin
}
