package declaration

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/canon"
)

// FuzzQuickString: whatever quickString decodes, encoding/json decodes to
// the same string.
func FuzzQuickString(f *testing.F) {
	for _, s := range []string{`""`, `"a"`, `"file 1\nfile 1\n"`, `"a\"b"`, `"a\\"`, `"a\\\"`, `"\/\b\f\n\r\t"`,
		`"\u0041"`, `"é"`, `"a"b"`, `"a\"`, `"a` + "\t" + `"`, `"<>&"`, `x`, `"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := quickString(data)
		if !ok {
			return
		}
		var want string
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatalf("quickString(%q) = %q, but encoding/json refuses it: %v", data, got, err)
		}
		if got != want {
			t.Fatalf("quickString(%q) = %q, encoding/json %q", data, got, want)
		}
	})
}

// TestQuickStringDecides: the strings quickString takes and leaves.
func TestQuickStringDecides(t *testing.T) {
	for in, want := range map[string]bool{`""`: true, `"file 1\nfile 1\n"`: true, `"a\"b"`: true, `"a\\"`: true,
		`"\u0041"`: false, `"é"`: false, `"a"b"`: false, `"a\"`: false, "\"a\tb\"": false, ` "a"`: false} {
		if _, ok := quickString([]byte(in)); ok != want {
			t.Errorf("quickString(%s): ok %v, want %v", in, ok, want)
		}
	}
}

// TestDecodeResourcesParallel: a long list, decoded a run per processor,
// reads as one loop would: every resource in order, and of several that
// don't decode, the first one's error.
func TestDecodeResourcesParallel(t *testing.T) {
	doc := func(bad ...int) []byte {
		var b strings.Builder
		b.WriteString(`{"format":"zap.declaration/1","target":{"local":true},"resources":[`)
		for i := range 4 * parallelResources {
			if i > 0 {
				b.WriteString(",")
			}
			mode := "644"
			if slices.Contains(bad, i) {
				mode = "8"
				fmt.Fprintf(&b, `{"id":"f%d","type":"file","path":"/tmp/f%d","mode":%s,"content":{"type":"inline","content":"x\n"}}`, i, i, mode)
				continue
			}
			fmt.Fprintf(&b, `{"id":"f%d","type":"file","path":"/tmp/f%d","mode":"%s","content":{"type":"inline","content":"file %d\n"}}`, i, i, mode, i)
		}
		b.WriteString(`]}`)
		return []byte(b.String())
	}
	d, err := Read(doc())
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Resources) != 4*parallelResources {
		t.Fatalf("%d resources", len(d.Resources))
	}
	for i, r := range d.Resources {
		if want := fmt.Sprintf("f%d", i); r.ID != want || *r.File.Content.Inline != fmt.Sprintf("file %d\n", i) {
			t.Fatalf("resource %d is %s %q", i, r.ID, *r.File.Content.Inline)
		}
	}
	_, err = Read(doc(3*parallelResources+1, parallelResources+7, 2*parallelResources))
	want := fmt.Sprintf("resources[%d] (f%d).mode: want string, not a JSON number", parallelResources+7, parallelResources+7)
	if err == nil || err.Error() != want {
		t.Fatalf("Read: %v, want %s", err, want)
	}
}

// TestUnquoteAgreesWithQuickString: canon.Unquote, which decodeStrict reads
// strings with, takes every string quickString takes, to the same value.
func TestUnquoteAgreesWithQuickString(t *testing.T) {
	for _, in := range []string{`""`, `"a"`, `"file 1\nfile 1\n"`, `"a\"b"`, `"a\\"`, `"\/\b\f\n\r\t"`, `"<>&"`} {
		want, ok := quickString([]byte(in))
		if !ok {
			t.Fatalf("quickString(%s) refused", in)
		}
		if got, ok := canon.Unquote([]byte(in)); !ok || got != want {
			t.Errorf("canon.Unquote(%s) = %q %v, quickString %q", in, got, ok, want)
		}
	}
}
