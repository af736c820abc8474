package declaration

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

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
		if want := fmt.Sprintf("f%d", i); r.ID != want || *BodyOf[*File](&r).Content.Inline != fmt.Sprintf("file %d\n", i) {
			t.Fatalf("resource %d is %s %q", i, r.ID, *BodyOf[*File](&r).Content.Inline)
		}
	}
	_, err = Read(doc(3*parallelResources+1, parallelResources+7, 2*parallelResources))
	want := fmt.Sprintf("resources[%d] (f%d).mode: want string, not a JSON number", parallelResources+7, parallelResources+7)
	if err == nil || err.Error() != want {
		t.Fatalf("Read: %v, want %s", err, want)
	}
}
