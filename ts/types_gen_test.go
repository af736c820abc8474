package ts

import (
	"os"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/schema/tsgen"
)

// TestTypesGenerated fails when types.ts's interfaces aren't what the
// declaration's structs make of them (internal/schema/tsgen): a field, its
// type, whether it is optional or its doc comment differs. go generate ./ts
// rewrites the file.
func TestTypesGenerated(t *testing.T) {
	src, err := os.ReadFile("types.ts")
	if err != nil {
		t.Fatal(err)
	}
	out, err := tsgen.Generate(src)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) == string(src) {
		return
	}
	got, want := strings.Split(string(src), "\n"), strings.Split(string(out), "\n")
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Fatalf("types.ts is stale: run go generate ./ts\nline %d is   %q\nthe schema says %q", i+1, got[i], want[i])
		}
	}
	t.Fatalf("types.ts is stale: run go generate ./ts (it has %d lines, the schema makes %d)", len(got), len(want))
}
