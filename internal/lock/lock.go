// Package lock reads and writes zap.lock, the file beside a config that
// records the toolchain pin (the blake3 of the zap-eval binary the config is
// evaluated with) and the tracked pins of fetched content.
//
// The lock is the config's name with .lock for its extension (zap.ts ->
// zap.lock). It is declared intent, committed with the config, so it is
// written indented, one field a line, for a readable diff:
//
//	{
//	  "format": "zap.lock/2",
//	  "entries": [
//	    {
//	      "blake3": "<64 lowercase hex>",
//	      "config_hash": "<64 lowercase hex>",
//	      "id": "zig",
//	      "kind": "remote_file"
//	    }
//	  ],
//	  "toolchain": {
//	    "blake3": "<64 lowercase hex>"
//	  }
//	}
//
// An entry is a tracked pin: the resource's id, the kind of content it
// fetches (remote_file, build, apt_key), the blake3 of the bytes, and the
// config_hash of the declaration it was minted for (internal/lockhash).
// Entries are written sorted by id, one per id.
//
// Versions: zap.lock/1 is the lock of a zap that tracked no pin (its
// entries were always empty). It reads as it is, and the next write
// records it as zap.lock/2, which a zap that reads only zap.lock/1 refuses
// as newer.
//
// Reading is strict, as for every document Zap reads: the first field is
// "format", no unknown field, no null, no key twice. A lock whose format is
// zap.lock/N with N above the one this zap reads is refused as newer
// (ErrNewer), not misread. A config itself named *.lock is refused (its lock
// would overwrite it), and so is a symbolic link where the lock goes, by
// every read and every write (ErrLink). Writes are atomic: a temporary file
// in the same directory, synced, renamed over the lock.
package lock

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/zap-go/zap/internal/atomicfile"
	"github.com/zap-go/zap/internal/ownfile"
	"github.com/zap-go/zap/internal/strict"

	"github.com/zap-go/zap/pkg/canon"
	"github.com/zap-go/zap/pkg/declaration"
)

// Name and Version make the lock's format, "zap.lock/2". OldestVersion is
// the oldest this zap reads.
const (
	Name          = "zap.lock"
	Version       = 2
	OldestVersion = 1
)

// Format is the format this zap reads and writes.
var Format = Name + "/" + strconv.Itoa(Version)

// The ways a lock is refused. Each is an input to fix (exit 2).
var (
	// ErrLockName is a config named as its own lock would be.
	ErrLockName = errors.New("the config is named as its own lock would be")
	// ErrLink is a symbolic link, or anything but a regular file, where
	// the lock goes.
	ErrLink = errors.New("not a regular file")
	// ErrNewer is a lock written by a newer zap.
	ErrNewer = errors.New("newer than this zap reads")
	// ErrInvalid is a lock that doesn't read.
	ErrInvalid = errors.New("not a lock this zap reads")
)

// MaxSize is the largest lock Read reads, in bytes: a lock holds a pin and
// a few entries. It is held to canon's other limits (canon.Check) as every
// document is.
const MaxSize = 16 << 20

// Lock is the content of zap.lock.
type Lock struct {
	Format string `json:"format"`
	// Toolchain is the toolchain pin; nil until zap lock records one.
	Toolchain *Toolchain `json:"toolchain,omitempty"`
	// Entries are the tracked pins, one per resource id.
	Entries []Entry `json:"entries"`
}

// Entry returns the entry of id, or nil.
func (l *Lock) Entry(id string) *Entry {
	if l == nil {
		return nil
	}
	for i := range l.Entries {
		if l.Entries[i].ID == id {
			return &l.Entries[i]
		}
	}
	return nil
}

// Set records e, replacing the entry of its id.
func (l *Lock) Set(e Entry) {
	if old := l.Entry(e.ID); old != nil {
		*old = e
		return
	}
	l.Entries = append(l.Entries, e)
}

// Drop removes the entry of id, reporting whether there was one.
func (l *Lock) Drop(id string) bool {
	for i := range l.Entries {
		if l.Entries[i].ID == id {
			l.Entries = slices.Delete(l.Entries, i, i+1)
			return true
		}
	}
	return false
}

// Kinds are the kinds an entry takes.
var Kinds = []string{declaration.LockRemoteFile, declaration.LockBuild, declaration.LockAptKey}

// Toolchain pins the evaluator.
type Toolchain struct {
	// Blake3 is the blake3 of the zap-eval binary, 64 lowercase hex.
	Blake3 string `json:"blake3"`
}

// Entry is one tracked pin of fetched content.
type Entry struct {
	ID         string `json:"id"`
	Kind       string `json:"kind"`
	Blake3     string `json:"blake3"`
	ConfigHash string `json:"config_hash"`
}

var hexPin = regexp.MustCompile(`^[0-9a-f]{64}$`)

// IsPin reports whether s is a blake3 as the lock writes one.
func IsPin(s string) bool { return hexPin.MatchString(s) }

// Path is the lock of config: its name with .lock for its extension.
func Path(config string) (string, error) {
	ext := filepath.Ext(config)
	if ext == ".lock" {
		return "", fmt.Errorf("%s: %w (%s)", config, ErrLockName, filepath.Base(config))
	}
	return strings.TrimSuffix(config, ext) + ".lock", nil
}

// Read reads the lock at path. A lock that doesn't exist is nil, nil.
func Read(path string) (*Lock, error) {
	if err := checkNotLink(path); err != nil {
		return nil, err
	}
	data, err := ownfile.Read(path, MaxSize, ownfile.Rules{Refused: ErrLink, NotRegular: refusal})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	var limit *canon.LimitError
	if errors.As(err, &limit) {
		return nil, fmt.Errorf("%s: %w: %w", path, ErrInvalid, limit)
	}
	if err != nil {
		return nil, err
	}
	l, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

// Decode reads a lock's bytes strictly.
func Decode(data []byte) (*Lock, error) {
	format, err := firstFormat(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if !readable(format) {
		if n, ok := strings.CutPrefix(format, Name+"/"); ok {
			if v, err := strconv.Atoi(n); err == nil && v > Version && n == strconv.Itoa(v) {
				return nil, fmt.Errorf("%w: format %q, and this zap reads %q", ErrNewer, format, Format)
			}
		}
		return nil, fmt.Errorf("%w: format: this zap reads %q, not %q", ErrInvalid, Format, format)
	}
	if err := canon.Check(data, nil); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	var l Lock
	if err := strict.Decode(data, &l); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if l.Toolchain != nil && !IsPin(l.Toolchain.Blake3) {
		return nil, fmt.Errorf("%w: toolchain.blake3: %q is not 64 lowercase hex digits", ErrInvalid, l.Toolchain.Blake3)
	}
	seen := map[string]bool{}
	for i, e := range l.Entries {
		switch {
		case e.ID == "":
			return nil, fmt.Errorf("%w: entries[%d].id: required field missing", ErrInvalid, i)
		case seen[e.ID]:
			return nil, fmt.Errorf("%w: entries[%d].id: %q has an entry already", ErrInvalid, i, e.ID)
		case !slices.Contains(Kinds, e.Kind):
			return nil, fmt.Errorf("%w: entries[%d] (%s).kind: %q is none of %s", ErrInvalid, i, e.ID, e.Kind, strings.Join(Kinds, ", "))
		case !IsPin(e.Blake3):
			return nil, fmt.Errorf("%w: entries[%d] (%s).blake3: not 64 lowercase hex digits", ErrInvalid, i, e.ID)
		case !IsPin(e.ConfigHash):
			return nil, fmt.Errorf("%w: entries[%d] (%s).config_hash: not 64 lowercase hex digits", ErrInvalid, i, e.ID)
		}
		seen[e.ID] = true
	}
	return &l, nil
}

// readable reports whether format is one this zap reads: zap.lock/1 or
// zap.lock/2.
func readable(format string) bool {
	for v := OldestVersion; v <= Version; v++ {
		if format == Name+"/"+strconv.Itoa(v) {
			return true
		}
	}
	return false
}

// firstFormat is the value of the document's first field, which must be
// "format" holding a string.
func firstFormat(data []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return "", err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return "", errors.New("not a JSON object")
	}
	key, err := dec.Token()
	if err != nil {
		return "", err
	}
	if key != "format" {
		return "", errors.New(`the first field isn't "format"`)
	}
	val, err := dec.Token()
	if err != nil {
		return "", err
	}
	s, ok := val.(string)
	if !ok {
		return "", errors.New("format: want string")
	}
	return s, nil
}

// Encode is the lock as written: canonical JSON indented two spaces, and a
// final newline.
func (l *Lock) Encode() ([]byte, error) {
	out := *l
	out.Format = Format
	out.Entries = slices.SortedFunc(slices.Values(l.Entries), func(a, b Entry) int { return strings.Compare(a.ID, b.ID) })
	if out.Entries == nil {
		out.Entries = []Entry{}
	}
	data, err := canon.Marshal(&out)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, data, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// Write writes l to path atomically, refusing a link or anything but a
// regular file there. A new lock is mode 644; a lock already there keeps
// its mode.
func Write(path string, l *Lock) error {
	data, err := l.Encode()
	if err != nil {
		return err
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Lstat(path); err == nil {
		if !fi.Mode().IsRegular() {
			return refusal(path, fi)
		}
		mode = fi.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	// Checked again just before the rename, which would replace a link
	// rather than follow it: a link made in between is still refused.
	return atomicfile.Write(path, data, mode, func() error { return checkNotLink(path) })
}

// checkNotLink refuses a link or a non-regular file at path; nothing there
// is fine.
func checkNotLink(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return refusal(path, fi)
	}
	return nil
}

func refusal(path string, fi fs.FileInfo) error {
	if fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s: %w: a symbolic link", path, ErrLink)
	}
	return fmt.Errorf("%s: %w (%s)", path, ErrLink, fi.Mode().Type())
}
