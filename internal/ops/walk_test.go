package ops

import (
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/plan"
)

// TestWalkIsOneText checks that put, dir and link carry one copy of the
// functions that walk a path (each script is run alone, so each holds its
// own): from set -eu to the end of zap_into, the same text but for the
// operation's name.
func TestWalkIsOneText(t *testing.T) {
	walk := func(name plan.OpName) string {
		s, ok := Script(name)
		if !ok {
			t.Fatalf("no %s script", name)
		}
		i := strings.Index(s.Text, "set -eu\n")
		j := strings.Index(s.Text, "\nzap_into() {")
		if i < 0 || j < 0 {
			t.Fatalf("the %s script has no walk", name)
		}
		k := strings.Index(s.Text[j:], "\n}\n")
		return strings.Replace(s.Text[i:j+k], "zap="+string(name)+" ", "zap=OP ", 1)
	}
	put := walk(plan.OpPut)
	for _, name := range []plan.OpName{plan.OpDir, plan.OpLink} {
		if got := walk(name); got != put {
			t.Errorf("the %s script's walk differs from put's", name)
		}
	}
}
