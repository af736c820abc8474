package deploy

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/zeebo/blake3"

	"github.com/zap-go/zap/internal/ownfile"
	"github.com/zap-go/zap/internal/state"
	"github.com/zap-go/zap/internal/strict"
	"github.com/zap-go/zap/pkg/canon"
)

// PreviewFormat is the deploy preview's format.
const PreviewFormat = "zap.deploy-preview/1"

// previewLimit bounds a preview file: it holds a hash.
const previewLimit = 4096

// Previews keeps deploy previews in the state directory, under deploy/,
// one file per config and host holding the reviewed plan_hash: apart from
// the last-run reports zap apply binds to, so neither disturbs the other.
type Previews struct {
	Dir string // the state directory
	UID int
}

// Preview is a recorded deploy preview as read.
type Preview struct {
	Hash string
	raw  []byte
	path string
}

type previewDoc struct {
	Format string `json:"format"`
	Hash   string `json:"plan_hash"`
}

func (ps Previews) path(configAbs, host string) string {
	h := blake3.Sum256([]byte(host))
	return filepath.Join(ps.Dir, "deploy", state.Key(configAbs)+"-"+hex.EncodeToString(h[:8])+".json")
}

// Load reads the preview of configAbs on host: nil, nil for none.
func (ps Previews) Load(configAbs, host string) (*Preview, error) {
	for _, d := range []string{ps.Dir, filepath.Join(ps.Dir, "deploy")} {
		ok, err := state.CheckDir(d, ps.UID, d == ps.Dir, false)
		if err != nil || !ok {
			return nil, err
		}
	}
	path := ps.path(configAbs, host)
	raw, err := ownfile.Read(path, previewLimit, ownfile.Rules{Refused: state.ErrUntrusted, Own: true, UID: ps.UID})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var doc previewDoc
	if err := strict.Read(raw, PreviewFormat, nil, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &Preview{Hash: doc.Hash, raw: raw, path: path}, nil
}

// Record writes hash as the preview of configAbs on host.
func (ps Previews) Record(configAbs, host, hash string) error {
	dir := filepath.Join(ps.Dir, "deploy")
	for _, d := range []string{ps.Dir, dir} {
		ok, err := state.CheckDir(d, ps.UID, d == ps.Dir, false)
		if err != nil {
			return err
		}
		if !ok {
			if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
		}
	}
	doc, err := canon.Marshal(previewDoc{Format: PreviewFormat, Hash: hash})
	if err != nil {
		return err
	}
	return state.WriteFile(ps.path(configAbs, host), append(doc, '\n'))
}

// Claim withdraws the preview p for one wetrun: renamed to a name of its
// own, which only one run can do, and checked to be what was read. Of two
// wetruns on one preview, the second gets state.ErrClaimLost.
func (p *Preview) Claim() error {
	var n [8]byte
	_, _ = rand.Read(n[:])
	claim := p.path + ".claim-" + hex.EncodeToString(n[:])
	if err := os.Rename(p.path, claim); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return state.ErrClaimLost
		}
		return fmt.Errorf("claim the deploy preview: %w", err)
	}
	got, err := os.ReadFile(claim)
	if err != nil {
		return fmt.Errorf("claim the deploy preview: %w", err)
	}
	if !bytes.Equal(got, p.raw) {
		if err := os.Link(claim, p.path); err != nil && !errors.Is(err, fs.ErrExist) {
			os.Remove(claim)
			return fmt.Errorf("claim the deploy preview: put back the preview: %w", err)
		}
		os.Remove(claim)
		return state.ErrClaimLost
	}
	return os.Remove(claim)
}
