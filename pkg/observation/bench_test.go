package observation

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/declaration"
)

// largeObservations are observations like zap-detect's of testdata/bench's
// 2,000 converged files over SSH: the declaration (a directory, then 2,000
// files of 40 lines of inline content, mode 644, each depending on the
// directory), one elevated batch and a converged verdict each, about
// 1.2 MB.
func largeObservations(tb testing.TB) []byte {
	tb.Helper()
	host, user := declaration.Lit("127.0.0.1"), declaration.Lit("zaptest")
	d := declaration.Declaration{Format: declaration.Format, Target: declaration.Target{Host: &host, User: &user, Port: 2222}}
	d.Resources = append(d.Resources, declaration.Resource{
		Common: declaration.Common{ID: "bench", Type: declaration.KindDirectory},
		Body:   &declaration.Directory{Path: declaration.Lit("/tmp/zb/target/big")},
	})
	for i := range 2000 {
		content := strings.Repeat(fmt.Sprintf("file %d\n", i), 40)
		d.Resources = append(d.Resources, declaration.Resource{
			Common: declaration.Common{ID: fmt.Sprintf("f%d", i), Type: declaration.KindFile, DependsOn: []string{"bench"}},
			Body: &declaration.File{
				Path:    declaration.Lit(fmt.Sprintf("/tmp/zb/target/big/f%d.txt", i)),
				Content: declaration.Content{Type: declaration.ContentInline, Inline: &content},
				Mode:    "644",
			},
		})
	}
	o := Observations{Format: Format, Declaration: d, Context: Context{Target: "127.0.0.1", User: "zaptest"}}
	o.Batches = []Batch{{Lane: LaneElevated, Queries: 4001}}
	for _, r := range d.Resources {
		o.Resources = append(o.Resources, Resource{ID: r.ID, Verdict: Converged})
	}
	data, err := o.Encode()
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// BenchmarkReadLarge is zap-plan's read of its input at 2,000 files: the
// strict decode and Validate, the declaration's included.
func BenchmarkReadLarge(b *testing.B) {
	data := largeObservations(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(data); err != nil {
			b.Fatal(err)
		}
	}
}
