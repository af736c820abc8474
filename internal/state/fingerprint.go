package state

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/zap-go/zap/internal/ownfile"
)

// KeyFile is the name, in the state directory, of the operator's
// fingerprint key: 32 random bytes as 64 hex digits and a newline, mode
// 600, made on first use.
const KeyFile = "fingerprint.key"

// FingerprintKey returns the operator's fingerprint key, the key
// detect.Fingerprint is keyed with, making it on first use. A plan records
// what a file held as a fingerprint under this key, never as the file's
// digest, so a reader of plans who doesn't hold the key can't test a
// guessed secret against one. The key is refused (ErrUntrusted) when it is
// a symbolic link or not a regular file, isn't the user's own, or its mode
// isn't 600; so is a state directory another account can write.
func (s *Store) FingerprintKey() ([]byte, error) {
	if err := s.ensureDir(s.dir); err != nil {
		return nil, err
	}
	path := filepath.Join(s.dir, KeyFile)
	key, err := s.readKey(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	if err := s.makeKey(path); err != nil {
		return nil, fmt.Errorf("make the fingerprint key %s: %w", path, err)
	}
	return s.readKey(path)
}

// readKey reads the key at path, never through a link.
func (s *Store) readKey(path string) ([]byte, error) {
	f, fi, err := ownfile.Open(path, s.own(true))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if perm := fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky); perm != 0o600 {
		return nil, fmt.Errorf("%s: %w: its mode is %o, not 600", path, ErrUntrusted, perm)
	}
	b, err := io.ReadAll(io.LimitReader(f, 66))
	if err != nil {
		return nil, err
	}
	key := make([]byte, 32)
	if len(b) != 65 || b[64] != '\n' {
		return nil, fmt.Errorf("%s: not a fingerprint key (64 hex digits and a newline)", path)
	}
	if _, err := hex.Decode(key, b[:64]); err != nil {
		return nil, fmt.Errorf("%s: not a fingerprint key (64 hex digits and a newline)", path)
	}
	return key, nil
}

// makeKey writes a new key whole under a temporary name and links it to
// path, so a reader never sees part of one and of two runs making it at
// once, the first link wins and both read its key.
func (s *Store) makeKey(path string) error {
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return err
	}
	f, err := os.CreateTemp(s.dir, ".key-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, err = f.WriteString(hex.EncodeToString(raw[:]) + "\n")
	if err == nil {
		err = f.Chmod(0o600)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Link(tmp, path); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return syncDir(s.dir)
}
