package canon

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
)

// The limits on every document Zap reads from outside itself: a stage's
// input, the lock, the last-run report, the caches. A reader holds a
// document to them before it builds anything from it, in one pass over its
// bytes, so what a document can cost is proportionate to what it may be,
// however it is made. docs/protocol.md ("Limits") lists them.
const (
	// MaxSize is the most bytes a document may hold: zap-eval writes no
	// declaration larger, and no stage reads a larger input.
	MaxSize = 64 << 20

	// MaxDepth is how deeply objects and arrays may nest in a document,
	// the document's own object counting 1. The deepest Zap writes is a
	// template variable's value, which zap-eval refuses past 64 levels
	// counted from the resource, inside a plan's put step (the plan, its
	// changes, a change, its steps, a step, its op, the op's from, its
	// vars): 69.
	MaxDepth = 128

	// MaxValues is how many values (objects, arrays, strings, numbers,
	// true, false and null, an object's keys not counted) a document may
	// hold: one for every 64 bytes of the largest. A declaration of 2,000
	// files, the budget Zap is measured against, holds about 20,000, and
	// the plan made of it about 48,000.
	MaxValues = MaxSize / 64
)

// Bound names one of the limits.
type Bound string

// The bounds a LimitError names.
const (
	BoundSize   Bound = "size"
	BoundDepth  Bound = "depth"
	BoundValues Bound = "value"
)

// LimitError is a document past one of the limits.
type LimitError struct {
	Bound Bound
	// Limit is the bound's value: bytes, levels or values.
	Limit int64
	// Offset is the byte at which the document passed it: the object or
	// array one level too deep, or the value one too many (unused for
	// BoundSize).
	Offset int64
}

func (e *LimitError) Error() string {
	switch e.Bound {
	case BoundSize:
		return fmt.Sprintf("document size limit: larger than %s", sizeString(e.Limit))
	case BoundDepth:
		return fmt.Sprintf("document depth limit: nests more than %d deep (at byte %d)", e.Limit, e.Offset)
	}
	return fmt.Sprintf("document %s limit: holds more than %d values (at byte %d)", e.Bound, e.Limit, e.Offset)
}

func sizeString(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Bounds holds data to MaxDepth and MaxValues, in one pass over its bytes
// with nothing allocated, and returns a *LimitError for the first it
// passes. It reads only the structure (strings, brackets and commas); data
// that isn't JSON is for Check and the decoders to refuse, and up to where
// it stops being JSON, Bounds counts what they read.
func Bounds(data []byte) error {
	depth, values := 0, 0
	// value counts the value at i: the document's, or a container's
	// first, or one after a comma.
	value := func(i int) error {
		if values++; values > MaxValues {
			return &LimitError{Bound: BoundValues, Limit: MaxValues, Offset: int64(i)}
		}
		return nil
	}
	i := skipSpace(data, 0)
	if i < len(data) {
		if err := value(i); err != nil {
			return err
		}
	}
	for ; i < len(data); i++ {
		switch data[i] {
		case '"':
			end := stringClose(data, i)
			if end < 0 {
				return nil
			}
			i = end
		case '[', '{':
			if depth++; depth > MaxDepth {
				return &LimitError{Bound: BoundDepth, Limit: MaxDepth, Offset: int64(i)}
			}
			if j := skipSpace(data, i+1); j < len(data) && data[j] != ']' && data[j] != '}' {
				if err := value(j); err != nil {
					return err
				}
			}
		case ']', '}':
			depth--
		case ',':
			if err := value(skipSpace(data, i+1)); err != nil {
				return err
			}
		}
	}
	return nil
}

func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// stringClose is the index of the quote that closes the string opening at
// data[open], the first not escaped (not after an odd run of backslashes),
// or -1. Each byte is looked at a bounded number of times: a run of
// backslashes ends at the quote before it.
func stringClose(data []byte, open int) int {
	for i := open + 1; ; {
		j := bytes.IndexByte(data[i:], '"')
		if j < 0 {
			return -1
		}
		i += j
		n := 0
		for k := i - 1; k > open && data[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return i
		}
		i++
	}
}

// statSeeker is a reader that says its size and where it is, as an
// *os.File does: named by its methods, so canon imports no package that
// does I/O (the planner's test holds its dependencies to that).
type statSeeker interface {
	Stat() (fs.FileInfo, error)
	io.Seeker
}

// ReadAll reads r to its end, refusing with a *LimitError (BoundSize)
// anything larger than limit bytes: a regular file by its size, before
// reading it, anything else once limit+1 bytes are read, never more. What
// it holds while it reads is what was read, in blocks, and the document
// once it is whole.
func ReadAll(r io.Reader, limit int64) ([]byte, error) {
	size := int64(-1)
	if f, ok := r.(statSeeker); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			if pos, err := f.Seek(0, io.SeekCurrent); err == nil {
				size = max(fi.Size()-pos, 0)
			}
		}
	}
	if size > limit {
		return nil, &LimitError{Bound: BoundSize, Limit: limit}
	}
	r = io.LimitReader(r, limit+1)
	var blocks [][]byte
	var total int64
	// A file's bytes fit in the first block, with the one byte more that
	// shows it ended; what has no size is read in blocks that double, so
	// that nothing is copied until it is whole, and then once.
	n := int64(512)
	if size >= 0 {
		n = size + 1
	}
	for {
		b := make([]byte, n)
		got, err := io.ReadFull(r, b)
		blocks = append(blocks, b[:got])
		total += int64(got)
		if total > limit {
			return nil, &LimitError{Bound: BoundSize, Limit: limit}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, err
		}
		n = min(2*n, 4<<20)
	}
	if len(blocks) == 1 {
		return blocks[0], nil
	}
	data := make([]byte, 0, total)
	for _, b := range blocks {
		data = append(data, b...)
	}
	return data, nil
}
