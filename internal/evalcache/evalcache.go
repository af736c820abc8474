// Package evalcache is the config eval cache: a declaration zap-eval made,
// kept with everything on disk it was made from, so that a later command
// can be served it without running the evaluator again.
//
// Layout, under the state directory ($ZAP_HOME, else ~/.zap):
//
//	<state>/cache/eval/            mode 700, the user's own
//	<state>/cache/eval/<key>.json  mode 600, one entry per config and pin
//
// where <key> is the blake3 of the toolchain pin and the config's absolute
// path. An entry records the pin, the config path, the evaluation's inputs
// (every module and package.json the bundle read, with the blake3 of the
// bytes zap-eval read, and every path whose absence decided a resolution),
// the blake3 of that list, and the declaration zap-eval wrote, byte for
// byte. Entries are written whole and atomically (temporary file, fsync,
// rename), mode 600.
//
// Every lookup validates the manifest again: it hashes each recorded input
// as it is on disk now, and a lookup is a hit only when the entry's pin and
// config path are the ones asked for and every input still hashes to what
// was recorded (an absent one is still absent, a present one is still a
// regular file, not a link). Anything else, an entry that doesn't read or
// is of another format included, is a miss. A cache directory or entry that
// isn't the user's own, or that another account can read or write, is
// refused (state.ErrUntrusted).
package evalcache

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/zeebo/blake3"

	"github.com/zap-go/zap/internal/ownfile"
	"github.com/zap-go/zap/internal/state"
	"github.com/zap-go/zap/internal/strict"
	"github.com/zap-go/zap/pkg/canon"
)

// Format is the format of a cache entry.
const Format = "zap.evalcache/1"

// maxFile is the largest input or entry read, in bytes: an entry holds a
// declaration of up to canon.MaxSize, escaped as a string, and its inputs.
const maxFile = canon.MaxSize + 16<<20

// Entry is one cached evaluation.
type Entry struct {
	Format string `json:"format"`
	// Config is the config's absolute path, as zap was given it.
	Config string `json:"config"`
	// Toolchain is the toolchain pin: the blake3 of the zap-eval that ran.
	Toolchain string `json:"toolchain"`
	// Inputs is what the evaluation read, sorted by path.
	Inputs []Input `json:"inputs"`
	// InputsHash is the blake3 of the canonical JSON of Inputs.
	InputsHash string `json:"inputs_hash"`
	// Declaration is the declaration zap-eval wrote, newline included.
	Declaration string `json:"declaration"`
}

// Cache is the eval cache directory of a state directory.
type Cache struct {
	state string
	uid   int
}

// Open is the eval cache of the state directory dir. It reads nothing on
// disk; the directories are checked as they are used.
func Open(dir string) *Cache { return &Cache{state: dir, uid: os.Geteuid()} }

// Dir is the cache's directory.
func (c *Cache) Dir() string { return filepath.Join(c.state, "cache", "eval") }

func (c *Cache) dirs() []string {
	return []string{c.state, filepath.Join(c.state, "cache"), c.Dir()}
}

// Key is the entry name of config evaluated with the zap-eval pinned as pin.
func Key(config, pin string) string {
	sum := blake3.Sum256([]byte(pin + "\x00" + config))
	return hex.EncodeToString(sum[:])
}

func (c *Cache) path(config, pin string) string {
	return filepath.Join(c.Dir(), Key(config, pin)+".json")
}

// Lookup returns the declaration cached for config evaluated with the
// zap-eval pinned as pin, when every input it recorded is still as it was.
func (c *Cache) Lookup(config, pin string) ([]byte, bool, error) {
	for i, d := range c.dirs() {
		ok, err := c.checkDir(d, i == 2)
		if err != nil || !ok {
			return nil, false, err
		}
	}
	path := c.path(config, pin)
	raw, err := c.readOwn(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	// An entry past the limits of a document (canon's, maxFile for its
	// size) is refused, as any document is: Prepare makes none. One that
	// otherwise doesn't read is a miss.
	var e Entry
	var limit *canon.LimitError
	if err := canon.Check(raw, nil); errors.As(err, &limit) {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	} else if err != nil || strict.Decode(raw, &e) != nil ||
		e.Format != Format || e.Config != config || e.Toolchain != pin || CheckInputs(e.Inputs) != nil {
		return nil, false, nil
	}
	if h, err := inputsHash(e.Inputs); err != nil || h != e.InputsHash {
		return nil, false, nil
	}
	for _, in := range e.Inputs {
		if !Current(in) {
			return nil, false, nil
		}
	}
	return []byte(e.Declaration), true, nil
}

// Store records decl as config's declaration when evaluated with the
// zap-eval pinned as pin, made from inputs.
func (c *Cache) Store(config, pin string, inputs []Input, decl []byte) error {
	p, err := c.Prepare(config, pin, inputs, decl)
	if err != nil {
		return err
	}
	return p.Write()
}

// Pending is an entry Prepare made, which Write records.
type Pending struct {
	c    *Cache
	path string
	data []byte
	// same is true when an entry of the same bytes, the user's own, is
	// already there (the config evaluated as it was last time): writing
	// it again, synced, would change nothing.
	same bool
}

// Prepare makes the entry Store records, writing nothing: the inputs
// checked and hashed, the entry encoded, and the one there compared with
// it. It can run while the caller reads decl, which it then records
// (Write) only when that reads.
func (c *Cache) Prepare(config, pin string, inputs []Input, decl []byte) (*Pending, error) {
	if err := CheckInputs(inputs); err != nil {
		return nil, err
	}
	h, err := inputsHash(inputs)
	if err != nil {
		return nil, err
	}
	data, err := entryBytes(Entry{Format: Format, Config: config, Toolchain: pin, Inputs: inputs, InputsHash: h}, decl)
	if err != nil {
		return nil, err
	}
	data = append(data, '\n')
	if len(data) > maxFile {
		return nil, fmt.Errorf("an entry of %d bytes is larger than the %d MiB the cache reads; nothing was recorded", len(data), maxFile>>20)
	}
	p := &Pending{c: c, path: c.path(config, pin), data: data}
	if was, err := c.readOwn(p.path); err == nil && bytes.Equal(was, data) {
		p.same = true
	}
	return p, nil
}

// declMember is the declaration's member of an entry whose declaration is
// empty, in canonical form. Inside a JSON string every quote is escaped, so
// these bytes are that member wherever they are found.
var declMember = []byte(`"declaration":""`)

// entryBytes is canon.Marshal of e with decl as its declaration. A
// declaration of printable ASCII, tabs and newlines (what zap-eval writes
// but for a string of other characters) is escaped into the canonical
// encoding of the rest directly, rather than encoded and then scanned again
// as part of the whole.
func entryBytes(e Entry, decl []byte) ([]byte, error) {
	if esc, ok := appendQuick(nil, decl); ok {
		rest, err := canon.Marshal(e)
		if err != nil {
			return nil, err
		}
		if i := bytes.Index(rest, declMember); i >= 0 && e.Declaration == "" {
			at := i + len(declMember) - 1 // the closing quote
			out := make([]byte, 0, len(rest)+len(esc))
			out = append(out, rest[:at]...)
			out = append(out, esc...)
			return append(out, rest[at:]...), nil
		}
	}
	e.Declaration = string(decl)
	return canon.Marshal(e)
}

// appendQuick appends s as the body of a canonical JSON string when it is
// printable ASCII, tabs and newlines; ok is false for anything else.
func appendQuick(out, s []byte) ([]byte, bool) {
	out = slices.Grow(out, len(s)+len(s)/8)
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			out = append(out, '\\', c)
		case c == '\n':
			out = append(out, '\\', 'n')
		case c == '\t':
			out = append(out, '\\', 't')
		case c < 0x20 || c > 0x7e:
			return nil, false
		default:
			out = append(out, c)
		}
	}
	return out, true
}

// Write records the entry Prepare made, unless the same one is there.
func (p *Pending) Write() error {
	if err := p.c.Ensure(); err != nil {
		return err
	}
	if p.same {
		return nil
	}
	return state.WriteFile(p.path, p.data)
}

// Ensure makes the cache directory when it is missing, checking every
// directory on the way.
func (c *Cache) Ensure() error {
	for i, d := range c.dirs() {
		ok, err := c.checkDir(d, i == 2)
		if err != nil {
			return err
		}
		if ok {
			continue
		}
		if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		if _, err := c.checkDir(d, i == 2); err != nil {
			return err
		}
	}
	return nil
}

func inputsHash(inputs []Input) (string, error) {
	data, err := canon.Marshal(inputs)
	if err != nil {
		return "", err
	}
	sum := blake3.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// Current reports whether in is as it was recorded: an absent path is
// still absent; a file is still a regular file at that path (not a link)
// whose bytes hash to the recorded blake3.
func Current(in Input) bool {
	fi, err := os.Lstat(in.Path)
	if in.Absent {
		return errors.Is(err, fs.ErrNotExist)
	}
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxFile {
		return false
	}
	// Opened only once it is known to be a regular file, and checked to be
	// the same one: nothing that has an effect on open is opened.
	f, err := os.OpenFile(in.Path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	fi2, err := f.Stat()
	if err != nil || !os.SameFile(fi, fi2) {
		return false
	}
	h := blake3.New()
	n, err := io.Copy(h, io.LimitReader(f, maxFile+1))
	if err != nil || n > maxFile {
		return false
	}
	return hex.EncodeToString(h.Sum(nil)) == in.Blake3
}

// checkDir reports whether d exists, refusing one that isn't a directory
// owned by the user and closed to other accounts' writes (and, private,
// to any access by them).
func (c *Cache) checkDir(d string, private bool) (bool, error) {
	return state.CheckDir(d, c.uid, d == c.state, private)
}

// readOwn reads an entry: a regular file the user owns that no one else
// can use, never through a link.
func (c *Cache) readOwn(path string) ([]byte, error) {
	return ownfile.Read(path, maxFile, ownfile.Rules{Refused: state.ErrUntrusted, Own: true, UID: c.uid, Private: true})
}

// isHex64 reports whether s is 64 lowercase hex digits.
func isHex64(s string) bool {
	b, err := hex.DecodeString(s)
	return err == nil && len(b) == 32 && strings.ToLower(s) == s
}
