package batch

import (
	"testing"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/pkg/observation"
)

// FuzzParseText: whatever a text group prints, its parse never panics,
// answers every read, and a read that answers ok with content carries at
// most the limit, all of it bytes the output held after its stat lines.
func FuzzParseText(f *testing.F) {
	f.Add([]byte("flm\n4 1\nabcd"), 0)
	f.Add([]byte("ftt\n30 1\n"), 0)
	f.Add([]byte("fll\n4 2\n"), 0)
	f.Add([]byte("fff\n1 1\n2 1\n3 1\nabbccc"), 0)
	f.Add([]byte("f\n"), 3)
	f.Fuzz(func(t *testing.T, data []byte, code int) {
		var qs []detect.Query
		for _, p := range []string{"/a", "/b", "/c"} {
			qs = append(qs, detect.Query{Op: detect.OpText, Lane: observation.LaneElevated, Path: p, Limit: 8})
		}
		b, err := Build(fuzzNonce, qs)
		if err != nil {
			t.Fatal(err)
		}
		un := b.units[0]
		answers := make([]detect.Answer, len(qs))
		textGroupAnswers(b, answers, un, code&0xff, data)
		total := 0
		for i, a := range answers {
			if a.Status == "" {
				t.Fatalf("read %d has no answer", i)
			}
			if len(a.Content) > 8 {
				t.Fatalf("read %d carries %d bytes, over its limit", i, len(a.Content))
			}
			total += len(a.Content)
		}
		if total > len(data) {
			t.Fatalf("%d bytes of content from %d bytes of output", total, len(data))
		}
	})
}
