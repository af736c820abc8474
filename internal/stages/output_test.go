package stages

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// An Output gives back exactly what was written, however it was cut into
// writes, in chunks that at most double what came before (so a document
// is copied once more when joined, not at every doubling).
func TestOutput(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{0, 1, firstChunk - 1, firstChunk, firstChunk + 1, 100 << 10, 1200 << 10} {
		want := make([]byte, size)
		for i := range want {
			want[i] = byte(r.IntN(256))
		}
		var o Output
		for p := want; len(p) > 0; {
			k := min(len(p), 1+r.IntN(40<<10))
			if n, err := o.Write(p[:k]); n != k || err != nil {
				t.Fatalf("Write = %d, %v", n, err)
			}
			p = p[k:]
		}
		got := o.Bytes()
		if !bytes.Equal(got, want) || o.Len() != size {
			t.Fatalf("%d bytes written, %d given back (Len %d)", size, len(got), o.Len())
		}
		if size == 0 && got != nil {
			t.Errorf("nothing written, %q given back", got)
		}
		total := 0
		for _, c := range o.chunks {
			total += cap(c)
		}
		if size > firstChunk && total > 2*size+firstChunk {
			t.Errorf("%d bytes held in chunks of %d in all", size, total)
		}
		if len(o.chunks) > 1 && cap(got) != size {
			t.Errorf("%d bytes joined into an array of %d", size, cap(got))
		}
	}
}
