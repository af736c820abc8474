package swap

import (
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/declaration"
)

// TestShow: a plan shows a swap's path (the default too), the size it is
// made at and the fstab entry swap-fstab writes, in the script's own form.
func TestShow(t *testing.T) {
	lines := show(&declaration.Swap{Size: "2G"}, "sw")
	want := []string{"path: /swapfile", "size: 2G", "fstab: /swapfile none swap sw 0 0"}
	if len(lines) != len(want) {
		t.Fatalf("got %+v", lines)
	}
	for i, l := range lines {
		if got := l.Field + ": " + l.Value; got != want[i] {
			t.Errorf("line %d: %q, want %q", i, got, want[i])
		}
	}
	script, err := scripts.ReadFile("scripts/swap-fstab.sh")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(script), `printf '%s none swap sw 0 0\n' "$e"`) || FstabEntry("P") != "P none swap sw 0 0" {
		t.Error("swap-fstab.sh doesn't write the entry FstabEntry shows")
	}
}
