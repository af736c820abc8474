package state

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/zap-go/zap/internal/pin"
	"github.com/zap-go/zap/internal/strict"
	"github.com/zap-go/zap/pkg/canon"
)

// The caches live under <state>/cache/, each directory mode 700 and held to
// the same rule as the reports (the user's own, no other account writes it):
//
//	<state>/cache/eval_pins/<dev>-<ino>.json   the pin cache (internal/pin)
//
// A cache entry that doesn't read, or is of another format, is a miss.

// PinFormat is the format of a pin cache entry.
const PinFormat = "zap.evalpin/1"

func (s *Store) cacheDir() string { return filepath.Join(s.dir, "cache") }
func (s *Store) pinsDir() string  { return filepath.Join(s.cacheDir(), "eval_pins") }

// pinEntry is one pin cache entry: the blake3 of the file with this
// metadata.
type pinEntry struct {
	Format  string `json:"format"`
	Dev     uint64 `json:"dev"`
	Ino     uint64 `json:"ino"`
	Size    int64  `json:"size"`
	MtimeNs int64  `json:"mtime_ns"`
	CtimeNs int64  `json:"ctime_ns"`
	Blake3  string `json:"blake3"`
}

func (e *pinEntry) stat() pin.Stat {
	return pin.Stat{Dev: e.Dev, Ino: e.Ino, Size: e.Size, MtimeNs: e.MtimeNs, CtimeNs: e.CtimeNs}
}

// PinCache is the evaluator pin cache in the state directory. It implements
// pin.Cache.
func (s *Store) PinCache() pin.Cache { return pinCache{s} }

type pinCache struct{ s *Store }

func (c pinCache) path(st pin.Stat) string {
	return filepath.Join(c.s.pinsDir(), fmt.Sprintf("%d-%d.json", st.Dev, st.Ino))
}

// Lookup refuses (ErrUntrusted) a cache directory or entry that isn't the
// user's own; no entry, or one for other metadata, is a miss.
func (c pinCache) Lookup(st pin.Stat) (string, bool, error) {
	for _, d := range []string{c.s.dir, c.s.cacheDir(), c.s.pinsDir()} {
		ok, err := c.s.checkDir(d)
		if err != nil || !ok {
			return "", false, err
		}
	}
	raw, err := c.s.readOwn(c.path(st))
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	// An entry past the limits of a document is refused, as any
	// document is; one that otherwise doesn't read is a miss.
	var e pinEntry
	var limit *canon.LimitError
	if err := canon.Check(raw, nil); errors.As(err, &limit) {
		return "", false, fmt.Errorf("%s: %w", c.path(st), err)
	} else if err != nil || strict.Decode(raw, &e) != nil ||
		e.Format != PinFormat || e.stat() != st || !isHex64(e.Blake3) {
		return "", false, nil
	}
	return e.Blake3, true, nil
}

// Store records sum for the file with st.
func (c pinCache) Store(st pin.Stat, sum string) error {
	data, err := canon.Marshal(pinEntry{Format: PinFormat, Dev: st.Dev, Ino: st.Ino, Size: st.Size, MtimeNs: st.MtimeNs, CtimeNs: st.CtimeNs, Blake3: sum})
	if err != nil {
		return err
	}
	for _, d := range []string{c.s.dir, c.s.cacheDir(), c.s.pinsDir()} {
		if err := c.s.ensureDir(d); err != nil {
			return err
		}
	}
	return WriteFile(c.path(st), append(data, '\n'))
}

func isHex64(s string) bool {
	b, err := hex.DecodeString(s)
	return err == nil && len(b) == 32 && hex.EncodeToString(b) == s
}
