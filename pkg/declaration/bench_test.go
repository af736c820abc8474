package declaration

import (
	"fmt"
	"strings"
	"testing"
)

// largeDeclaration is a declaration like the one zap-eval writes for 2,000
// inline files (issue 4's budget): a directory, then 2,000 file resources
// with 40-line inline content, a mode and a dependency, about 1.1 MB.
func largeDeclaration(tb testing.TB) (*Declaration, []byte) {
	tb.Helper()
	d := &Declaration{Format: Format, Target: Target{Local: true}}
	d.Resources = append(d.Resources, Resource{
		Common: Common{ID: "bench", Type: KindDirectory},
		Body:   &Directory{Path: Lit("/tmp/zb/target/big")},
	})
	for i := range 2000 {
		content := strings.Repeat(fmt.Sprintf("file %d\n", i), 40)
		d.Resources = append(d.Resources, Resource{
			Common: Common{ID: fmt.Sprintf("f%d", i), Type: KindFile, DependsOn: []string{"bench"}},
			Body: &File{
				Path:    Lit(fmt.Sprintf("/tmp/zb/target/big/f%d.txt", i)),
				Content: Content{Type: ContentInline, Inline: &content},
				Mode:    "644",
			},
		})
	}
	data, err := d.Encode()
	if err != nil {
		tb.Fatal(err)
	}
	return d, data
}

func BenchmarkReadLarge(b *testing.B) {
	_, data := largeDeclaration(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeLarge(b *testing.B) {
	d, data := largeDeclaration(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.Encode(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidateLarge checks the large declaration and lists the
// variables it references, as zap-eval does with what its evaluating
// process wrote (Validate, then the secret gate's Refs).
func BenchmarkValidateLarge(b *testing.B) {
	d, _ := largeDeclaration(b)
	b.ReportAllocs()
	for b.Loop() {
		if err := d.Validate(); err != nil {
			b.Fatal(err)
		}
		_ = d.Refs()
	}
}
