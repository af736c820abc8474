package fetch

import (
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/zeebo/blake3"

	"github.com/zap-go/zap/internal/ownfile"
)

// Cache is a content cache: one private directory of the user's holding
// files each named by the blake3 of its bytes, 64 lowercase hex digits and
// nothing else.
type Cache struct {
	dir string
	uid int
}

// NewCache is the cache in dir, which Add makes (mode 0700) when it is
// missing. Nothing is read or made until it is used.
func NewCache(dir string) *Cache {
	return &Cache{dir: dir, uid: os.Geteuid()}
}

// Dir is the cache's directory.
func (c *Cache) Dir() string { return c.dir }

// Entry is pinned content: an open, read-only file positioned at its
// first byte, whose bytes hashed to Blake3 when they were read or written.
// The caller closes it.
type Entry struct {
	File   *os.File
	Blake3 string // 64 lowercase hex
	SHA512 string // 128 lowercase hex, what a target's sha512sum prints
	Size   int64
}

// Close closes the entry's file.
func (e *Entry) Close() error { return e.File.Close() }

// ValidPin reports whether pin is a blake3 pin: 64 lowercase hex digits.
func ValidPin(pin string) bool {
	return len(pin) == 64 && strings.Trim(pin, "0123456789abcdef") == ""
}

func checkPin(pin string) error {
	if !ValidPin(pin) {
		return fmt.Errorf("%w: %q is not a blake3 pin (64 lowercase hex digits)", ErrRefused, pin)
	}
	return nil
}

// Open is the entry pinned by pin, with no network: its file opened only
// when it is a regular file of the user's that no one else can use, reached
// through no link, and hashed again. An entry that isn't there is an error
// matching fs.ErrNotExist. One whose bytes don't hash to its name is
// removed, and reported as ErrCorrupt: the next fetch puts it back.
func (c *Cache) Open(pin string) (*Entry, error) {
	if err := checkPin(pin); err != nil {
		return nil, err
	}
	if err := c.checkDir(false); err != nil {
		return nil, err
	}
	path := c.path(pin)
	f, fi, err := ownfile.Open(path, c.rules())
	if err != nil {
		return nil, err
	}
	e, err := hashFile(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if e.Blake3 != pin {
		f.Close()
		// Only the file that was read: a good copy renamed over it since
		// stays.
		if now, err := os.Lstat(path); err == nil && os.SameFile(fi, now) {
			os.Remove(path)
		}
		return nil, fmt.Errorf("%s: %w: its bytes hash to blake3 %s; removed", path, ErrCorrupt, e.Blake3)
	}
	return e, nil
}

// Add puts at most limit bytes from r in the cache and returns the entry,
// checked against pin when pin isn't empty (else named by what r gave).
// Bytes over the bound, or that don't hash to the pin (*MismatchError),
// leave nothing in the cache. Detection adds a target's bytes this way.
func (c *Cache) Add(r io.Reader, pin string, limit int64) (*Entry, error) {
	return c.add(r, pin, limit, nil)
}

// add is Add with check, which runs on the bytes at their temporary path
// once they hash to the pin, before they take their name in the cache: an
// error from it leaves nothing in the cache.
func (c *Cache) add(r io.Reader, pin string, limit int64, check func(path string) error) (*Entry, error) {
	if pin != "" {
		if err := checkPin(pin); err != nil {
			return nil, err
		}
	}
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	if err := c.checkDir(true); err != nil {
		return nil, err
	}
	// The temporary file is mode 0600 (os.CreateTemp), in the private
	// directory, and named at random: nothing of the URL reaches a path.
	tmp, err := os.CreateTemp(c.dir, ".tmp-*")
	if err != nil {
		return nil, err
	}
	kept := false
	defer func() {
		tmp.Close()
		if !kept {
			os.Remove(tmp.Name())
		}
	}()
	h := newHashes()
	n, err := io.Copy(io.MultiWriter(tmp, h), io.LimitReader(r, limit+1))
	switch {
	case err != nil:
		return nil, err
	case n > limit:
		return nil, tooLarge(limit)
	}
	got := h.entry(nil, n)
	if pin != "" && got.Blake3 != pin {
		return nil, &MismatchError{Want: pin, Got: got.Blake3}
	}
	if err := tmp.Sync(); err != nil {
		return nil, err
	}
	if check != nil {
		if err := check(tmp.Name()); err != nil {
			return nil, err
		}
	}
	written, err := tmp.Stat()
	if err != nil {
		return nil, err
	}
	path := c.path(got.Blake3)
	if err := os.Rename(tmp.Name(), path); err != nil {
		return nil, err
	}
	// The directory isn't synced: a crash may lose the entry, which is
	// then fetched again, never a part of it (the file was synced).
	kept = true
	f, fi, err := ownfile.Open(path, c.rules())
	if err != nil {
		return nil, err
	}
	if !os.SameFile(written, fi) {
		// Another run put the same bytes there since: read them as a hit.
		f.Close()
		return c.Open(got.Blake3)
	}
	got.File = f
	return got, nil
}

func tooLarge(limit int64) error {
	return fmt.Errorf("%w: more than %d bytes, the size bound", ErrTooLarge, limit)
}

func (c *Cache) path(pin string) string { return filepath.Join(c.dir, pin) }

// rules are an entry's: a regular file of the user's, private, no link.
func (c *Cache) rules() ownfile.Rules {
	return ownfile.Rules{Refused: ErrUntrusted, Own: true, UID: c.uid, Private: true}
}

// checkDir checks that the cache directory is a directory of the user's
// that no one else can use, not a link; create makes it when it is
// missing (with any missing parent, mode 0700).
func (c *Cache) checkDir(create bool) error {
	fi, err := os.Lstat(c.dir)
	if errors.Is(err, fs.ErrNotExist) && create {
		if err := os.MkdirAll(c.dir, 0o700); err != nil {
			return err
		}
		fi, err = os.Lstat(c.dir)
	}
	switch {
	case err != nil:
		return err
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s: %w: a symbolic link", c.dir, ErrUntrusted)
	case !fi.IsDir():
		return fmt.Errorf("%s: %w: not a directory", c.dir, ErrUntrusted)
	}
	return ownfile.Trust(c.dir, fi, c.uid, true, ErrUntrusted)
}

// hashes takes both digests of an entry in one pass.
type hashes struct {
	b3  *blake3.Hasher
	s5  hash.Hash
	all io.Writer
}

func newHashes() *hashes {
	h := &hashes{b3: blake3.New(), s5: sha512.New()}
	h.all = io.MultiWriter(h.b3, h.s5)
	return h
}

func (h *hashes) Write(p []byte) (int, error) { return h.all.Write(p) }

func (h *hashes) entry(f *os.File, n int64) *Entry {
	return &Entry{File: f, Blake3: hex.EncodeToString(h.b3.Sum(nil)), SHA512: hex.EncodeToString(h.s5.Sum(nil)), Size: n}
}

// hashFile hashes f from its first byte and leaves it there again.
func hashFile(f *os.File) (*Entry, error) {
	h := newHashes()
	n, err := io.Copy(h, f)
	if err != nil {
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return h.entry(f, n), nil
}
