package canon

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// nest is n arrays, one inside the other, in a member of a document.
func nest(n int) []byte {
	return []byte(`{"format":"x/1","a":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}`)
}

// nestObjects is n objects, each the member "k" of the one around it.
func nestObjects(n int) []byte {
	return []byte(strings.Repeat(`{"k":`, n) + "1" + strings.Repeat("}", n))
}

// wide is a document holding n values: its object, its list and n-2
// numbers in the list.
func wide(n int) []byte {
	return []byte(`{"a":[` + strings.TrimSuffix(strings.Repeat("0,", n-2), ",") + `]}`)
}

func TestBounds(t *testing.T) {
	at := func(s, sub string) int64 { return int64(strings.Index(s, sub)) }
	deep := string(nest(MaxDepth))
	tests := []struct {
		name string
		in   []byte
		want *LimitError // nil: within the limits
	}{
		{"MaxDepth levels", nest(MaxDepth - 1), nil},
		{"MaxDepth objects", nestObjects(MaxDepth), nil},
		{"a level more", nest(MaxDepth), &LimitError{Bound: BoundDepth, Limit: MaxDepth, Offset: at(deep, "[") + MaxDepth - 1}},
		{"an object a level more", nestObjects(MaxDepth + 1), &LimitError{Bound: BoundDepth, Limit: MaxDepth, Offset: MaxDepth * 5}},
		{"50,000 levels", nest(50000), &LimitError{Bound: BoundDepth, Limit: MaxDepth, Offset: at(deep, "[") + MaxDepth - 1}},
		{"1,000,000 levels", nest(1000000), &LimitError{Bound: BoundDepth, Limit: MaxDepth, Offset: at(deep, "[") + MaxDepth - 1}},
		{"brackets in strings", []byte(`{"[":"` + strings.Repeat(`[{\"`, 1000) + `"}`), nil},
		{"MaxValues values", wide(MaxValues), nil},
		{"a value more", wide(MaxValues + 1), &LimitError{Bound: BoundValues, Limit: MaxValues, Offset: int64(len(wide(MaxValues+1)) - 3)}},
		{"empty lists count once", []byte(`[` + strings.Repeat(`[],`, MaxValues-2) + `{}]`), nil},
		{"empty lists, a value more", []byte(`[` + strings.Repeat(`[],`, MaxValues-1) + `{}]`), &LimitError{Bound: BoundValues, Limit: MaxValues, Offset: 1 + 3*(MaxValues-1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for name, err := range map[string]error{"Bounds": Bounds(tt.in), "Check": Check(tt.in, nil)} {
				if tt.want == nil {
					if err != nil {
						t.Errorf("%s: %v", name, err)
					}
					continue
				}
				var le *LimitError
				if !errors.As(err, &le) || *le != *tt.want {
					t.Errorf("%s: %#v, want %#v", name, err, tt.want)
				}
			}
			if tt.want != nil && tt.want.Bound == BoundDepth {
				// The decoder's reading holds to the depth too: it is
				// what reads a document the fast path doesn't.
				if err := checkSlow(tt.in, nil); !reflect.DeepEqual(err, tt.want) {
					t.Errorf("checkSlow: %#v, want %#v", err, tt.want)
				}
			}
		})
	}
}

func TestLimitErrorText(t *testing.T) {
	for _, tt := range []struct {
		err  LimitError
		want string
	}{
		{LimitError{Bound: BoundSize, Limit: MaxSize}, "document size limit: larger than 64 MiB"},
		{LimitError{Bound: BoundSize, Limit: 100}, "document size limit: larger than 100 bytes"},
		{LimitError{Bound: BoundDepth, Limit: MaxDepth, Offset: 140}, "document depth limit: nests more than 128 deep (at byte 140)"},
		{LimitError{Bound: BoundValues, Limit: MaxValues, Offset: 9}, "document value limit: holds more than 1048576 values (at byte 9)"},
	} {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("%#v: %q, want %q", tt.err, got, tt.want)
		}
	}
}

func TestReadAll(t *testing.T) {
	const limit = 100
	for _, n := range []int{0, 1, limit} {
		in := bytes.Repeat([]byte("x"), n)
		got, err := ReadAll(bytes.NewReader(in), limit)
		if err != nil || !bytes.Equal(got, in) {
			t.Errorf("%d bytes: %q, %v", n, got, err)
		}
	}
	want := &LimitError{Bound: BoundSize, Limit: limit}
	r := &countingReader{r: bytes.NewReader(make([]byte, 10*limit))}
	if _, err := ReadAll(r, limit); !reflect.DeepEqual(err, want) {
		t.Errorf("over the limit: %v, want %v", err, want)
	}
	if r.n > limit+1 {
		t.Errorf("read %d bytes of a reader over the limit of %d, want at most one more", r.n, limit)
	}

	// A regular file over the limit is refused by its size, unread; one
	// within it is read from where it is open.
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, make([]byte, limit+1), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(big)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := ReadAll(f, limit); !reflect.DeepEqual(err, want) {
		t.Errorf("a file over the limit: %v, want %v", err, want)
	}
	if pos, _ := f.Seek(0, io.SeekCurrent); pos != 0 {
		t.Errorf("a file over the limit was read to %d", pos)
	}
	if _, err := f.Seek(1, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadAll(f, limit); err != nil || len(got) != limit {
		t.Errorf("the file's last %d bytes: %d bytes, %v", limit, len(got), err)
	}
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// memoryDocs are the documents TestCheckMemory checks in a process of
// their own.
var memoryDocs = map[string]func() []byte{
	"deep-50000":   func() []byte { return nest(50000) },
	"deep-1000000": func() []byte { return nest(1000000) },
	"deep-objects": func() []byte { return nestObjects(200000) },
	"wide":         func() []byte { return wide(MaxValues + 1) },
}

// checkMemoryCeiling is the most a process's peak resident memory may grow
// while Check refuses one of memoryDocs (at most 8 MB of bytes): it reads
// them in one pass, building nothing. Before the limits, 20,000 levels
// took 635 MB and 50,000 ran out of memory at 4.5 GB.
const checkMemoryCeiling = 48 << 20

// TestCheckMemory runs Check on deep and wide documents, each in a process
// of its own (this test binary again), and holds the growth of the
// process's own peak resident memory (VmHWM) to checkMemoryCeiling.
func TestCheckMemory(t *testing.T) {
	if name := os.Getenv("CANON_MEMORY_DOC"); name != "" {
		checkMemoryChild(name)
		return
	}
	for name := range memoryDocs {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestCheckMemory$", "-test.count=1")
			cmd.Env = append(os.Environ(), "CANON_MEMORY_DOC="+name)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			var before, after int64
			var check string
			for _, line := range strings.Split(string(out), "\n") {
				if s, ok := strings.CutPrefix(line, "memory: "); ok {
					if _, err := fmt.Sscanf(s, "%d %d %s", &before, &after, &check); err != nil {
						t.Fatalf("%q: %v", line, err)
					}
				}
			}
			if after == 0 {
				t.Fatalf("the child reported no memory:\n%s", out)
			}
			if check == "" || !strings.HasPrefix(check, "document") {
				t.Errorf("Check: %q, want a limit", check)
			}
			t.Logf("peak resident memory %d kB before Check, %d kB after", before>>10, after>>10)
			if grew := after - before; grew > checkMemoryCeiling {
				t.Errorf("Check on %s grew the peak resident memory by %d MB, more than %d MB", name, grew>>20, checkMemoryCeiling>>20)
			}
		})
	}
}

func checkMemoryChild(name string) {
	doc := memoryDocs[name]()
	before := peakRSS()
	err := Check(doc, nil)
	after := peakRSS()
	var le *LimitError
	msg := "none"
	if errors.As(err, &le) {
		msg = "document-" + string(le.Bound)
	}
	fmt.Printf("memory: %d %d %s\n", before, after, msg)
}

// peakRSS is this process's peak resident memory in bytes (VmHWM).
func peakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if s, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "kB")), 10, 64)
			if err != nil {
				return -1
			}
			return n << 10
		}
	}
	return -1
}

// fuzzMemoryCeiling is the most a fuzzing process's peak resident memory
// may reach while FuzzBounds checks documents of up to 8 MiB.
const fuzzMemoryCeiling = 1 << 30

// FuzzBounds checks Check holds every document to the limits as Bounds
// does, and that the decoder's reading never meets one Bounds passed, on
// documents made of parts repeated, so that they are deep or wide: head,
// then open n times, then middle, then close n times.
func FuzzBounds(f *testing.F) {
	f.Add([]byte(`{"format":"x/1","a":`), []byte("["), []byte(""), []byte("]"), uint32(50000))
	f.Add([]byte(""), []byte("["), []byte(""), []byte(""), uint32(1000000))
	f.Add([]byte(""), []byte(`{"k":`), []byte("null"), []byte("}"), uint32(50000))
	f.Add([]byte(""), []byte(`{"k":`), []byte("1"), []byte("}"), uint32(MaxDepth))
	f.Add([]byte(""), []byte(`[0,{"a":[`), []byte("1"), []byte("]}]"), uint32(MaxDepth/2))
	f.Add([]byte("["), []byte("0,"), []byte("0]"), []byte(""), uint32(MaxValues))
	f.Add([]byte("["), []byte(`"\\"`+","), []byte("[]]"), []byte(""), uint32(MaxValues-1))
	f.Add([]byte(`{"a":[`), []byte(`{"k":"[\"{"},`), []byte("{}]}"), []byte(""), uint32(30000))
	f.Add([]byte(`[`), []byte(`"\u005b",`), []byte(`[[[[]]]]]`), []byte(""), uint32(10))
	f.Fuzz(func(t *testing.T, head, open, middle, close []byte, n uint32) {
		if per := len(open) + len(close); per > 0 {
			n = min(n, uint32((8<<20)/per))
		}
		n = min(n, 1<<21)
		doc := slices.Concat(head, bytes.Repeat(open, int(n)), middle, bytes.Repeat(close, int(n)))
		bounds := Bounds(doc)
		err := Check(doc, nil)
		if bounds != nil {
			if !reflect.DeepEqual(err, bounds) {
				t.Fatalf("Bounds: %v, Check: %v", bounds, err)
			}
		} else {
			var le *LimitError
			if errors.As(err, &le) {
				t.Fatalf("Bounds passed the document, Check: %v", err)
			}
			// The decoder's reading is slow: it reads what is small.
			if len(doc) <= 1<<20 {
				if err := checkSlow(doc, nil); errors.As(err, &le) {
					t.Fatalf("Bounds passed the document, the decoder's reading: %v", err)
				}
			}
		}
		if peak := peakRSS(); peak > fuzzMemoryCeiling {
			t.Fatalf("peak resident memory %d MB, more than %d MB", peak>>20, fuzzMemoryCeiling>>20)
		}
	})
}
