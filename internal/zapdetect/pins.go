package zapdetect

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/fetch"
	"github.com/zap-go/zap/internal/lock"
	"github.com/zap-go/zap/internal/lockhash"
	"github.com/zap-go/zap/internal/resolve"
	"github.com/zap-go/zap/internal/state"
	"github.com/zap-go/zap/pkg/declaration"
)

// pinFlags are zap-detect's flags for tracked pins: --lock, the zap.lock to
// take them from, and --pin, a pin the caller minted for a resource whose
// entry is missing (a dry zap apply resolves one without writing it).
type pinFlags struct {
	lock   string
	minted map[string]string
}

// pinFlag is --pin ID=BLAKE3, repeated.
func (p *pinFlags) pinFlag(v string) error {
	id, pin, ok := strings.Cut(v, "=")
	if !ok || id == "" || !lock.IsPin(pin) {
		return fmt.Errorf("--pin %q: want ID=BLAKE3, the blake3 64 lowercase hex digits", v)
	}
	if p.minted == nil {
		p.minted = map[string]string{}
	}
	p.minted[id] = pin
	return nil
}

// pins is where the reads of a resource that fetches find its pin: the
// vendored one, else the tracked one zap.lock's entry holds while it is
// current (or one --pin gives), and the SHA-512 of the pinned bytes from
// the operator's content cache, which detection reads and never fetches
// into.
type pins struct {
	cache *fetch.Cache // nil: no state directory, nothing cached
	// standing is the lock's standing; nil when no lock is read.
	standing *lockhash.Report
	minted   map[string]string
}

// newPins opens the content cache under the state directory ($ZAP_HOME or
// ~/.zap) and, with --lock, classifies d's tracked pins against the lock.
// Without a state directory nothing is cached and a pin is compared by the
// target's own bytes. A lock that doesn't read is bad input.
func newPins(d *declaration.Declaration, res *resolve.Resolution, f pinFlags) (*pins, error) {
	p := &pins{minted: f.minted}
	if st, err := state.Open(os.Getenv); err == nil {
		p.cache = fetch.NewCache(st.ContentCache())
	}
	if f.lock == "" {
		return p, nil
	}
	l, err := lock.Read(f.lock)
	if err != nil {
		if errors.Is(err, lock.ErrNewer) || errors.Is(err, lock.ErrLink) || errors.Is(err, lock.ErrInvalid) {
			return nil, exit.BadInput(err)
		}
		return nil, exit.InWorld(err)
	}
	if p.standing, err = lockhash.New(d, res).Stand(l); err != nil {
		return nil, exit.InWorld(err)
	}
	return p, nil
}

// pin is detect.Env.Pin.
func (p *pins) pin(r *declaration.Resource, f declaration.Fetched) detect.Pin {
	blake3 := f.Blake3
	if blake3 == "" {
		var hold string
		blake3, hold = p.tracked(r.ID)
		if hold != "" {
			return detect.Pin{Hold: hold}
		}
	}
	pin := detect.Pin{Blake3: blake3}
	if p.cache == nil {
		return pin
	}
	// An entry that is missing, untrusted or corrupt (Open removes that
	// one) is not cached: the target's own bytes are compared instead.
	if e, err := p.cache.Open(blake3); err == nil {
		pin.SHA512 = e.SHA512
		e.Close()
	}
	return pin
}

// tracked is the tracked pin of id, or why there is none to compare with.
func (p *pins) tracked(id string) (blake3, hold string) {
	if pin, ok := p.minted[id]; ok {
		return pin, ""
	}
	if p.standing == nil {
		return "", "its pin is tracked in zap.lock, which this pass doesn't read"
	}
	s := p.standing.Of(id)
	if s == nil || s.Class != lockhash.Current {
		if s == nil {
			return "", "its pin is tracked in zap.lock, which has no entry for it"
		}
		return "", s.Reason()
	}
	return s.Entry.Blake3, ""
}
