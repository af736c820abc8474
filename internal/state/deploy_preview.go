package state

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
	"github.com/zap-go/zap/internal/strict"
	"github.com/zap-go/zap/pkg/canon"
)

// DeployPreviewFormat is the deploy preview's format.
const DeployPreviewFormat = "zap.deploy-preview/1"

// previewLimit bounds a preview file: it holds a hash.
const previewLimit = 4096

// A deploy preview is kept in the store, under deploy/, one file per
// config and host holding the reviewed plan_hash: apart from the last-run
// reports zap apply binds to, so neither disturbs the other, and read and
// written under the store's rules (its owner, no other account writing).

// DeployPreview is a recorded deploy preview as read.
type DeployPreview struct {
	Hash string
	raw  []byte
	path string
}

type previewDoc struct {
	Format string `json:"format"`
	Hash   string `json:"plan_hash"`
}

func (s *Store) deployPreviewPath(configAbs, host string) string {
	h := blake3.Sum256([]byte(host))
	return filepath.Join(s.dir, "deploy", Key(configAbs)+"-"+hex.EncodeToString(h[:8])+".json")
}

// LoadDeployPreview reads the deploy preview of configAbs on host: nil,
// nil for none.
func (s *Store) LoadDeployPreview(configAbs, host string) (*DeployPreview, error) {
	for _, d := range []string{s.dir, filepath.Join(s.dir, "deploy")} {
		ok, err := s.checkDir(d)
		if err != nil || !ok {
			return nil, err
		}
	}
	path := s.deployPreviewPath(configAbs, host)
	raw, err := ownfile.Read(path, previewLimit, s.own(false))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var doc previewDoc
	if err := strict.Read(raw, DeployPreviewFormat, nil, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &DeployPreview{Hash: doc.Hash, raw: raw, path: path}, nil
}

// RecordDeployPreview writes hash as the deploy preview of configAbs on
// host.
func (s *Store) RecordDeployPreview(configAbs, host, hash string) error {
	dir := filepath.Join(s.dir, "deploy")
	for _, d := range []string{s.dir, dir} {
		ok, err := s.checkDir(d)
		if err != nil {
			return err
		}
		if !ok {
			if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
		}
	}
	doc, err := canon.Marshal(previewDoc{Format: DeployPreviewFormat, Hash: hash})
	if err != nil {
		return err
	}
	return WriteFile(s.deployPreviewPath(configAbs, host), append(doc, '\n'))
}

// Claim withdraws the deploy preview p for one wetrun: renamed to a name of
// its own, which only one run can do, and checked to be what was read. Of
// two wetruns on one preview, the second gets ErrClaimLost.
func (p *DeployPreview) Claim() error {
	var n [8]byte
	_, _ = rand.Read(n[:])
	claim := p.path + ".claim-" + hex.EncodeToString(n[:])
	if err := os.Rename(p.path, claim); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return ErrClaimLost
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
		return ErrClaimLost
	}
	return os.Remove(claim)
}
