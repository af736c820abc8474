package ops

import (
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/plan"
)

// TestWalkIsOneText checks that put, dir and link each travel with the one
// shared walk (scripts/lib/walk.sh) in place, whole, put and link with the
// staging (scripts/lib/stage.sh) after it, that every other script that
// stages a file carries the same staging whole (a kind's among them), and
// that no script is left with an include it doesn't expand.
func TestWalkIsOneText(t *testing.T) {
	lib, err := scripts.ReadFile("scripts/lib/walk.sh")
	if err != nil {
		t.Fatal(err)
	}
	body := string(lib)
	for strings.HasPrefix(body, "#") {
		_, body, _ = strings.Cut(body, "\n")
	}
	for _, name := range []plan.OpName{plan.OpPut, plan.OpDir, plan.OpLink} {
		s, ok := Script(name)
		if !ok {
			t.Fatalf("no %s script", name)
		}
		if !strings.Contains(s.Text, "zap="+string(name)+"\n"+body) {
			t.Errorf("the %s script doesn't carry the walk whole after its name", name)
		}
	}
	// put and link stage their files with the one shared staging.
	lib, err = scripts.ReadFile("scripts/lib/stage.sh")
	if err != nil {
		t.Fatal(err)
	}
	stage := string(lib)
	for strings.HasPrefix(stage, "#") {
		_, stage, _ = strings.Cut(stage, "\n")
	}
	for _, name := range []plan.OpName{plan.OpPut, plan.OpLink} {
		if s, _ := Script(name); !strings.Contains(s.Text, body+stage) {
			t.Errorf("the %s script doesn't carry the staging whole after the walk", name)
		}
	}
	for _, name := range []plan.OpName{"ledger-mark", "swap-fstab", "user-keys", "user-sudo", "firewall-nft-apply"} {
		s, ok := Script(name)
		if !ok {
			t.Fatalf("no %s script", name)
		}
		if !strings.Contains(s.Text, stage) {
			t.Errorf("the %s script doesn't carry the staging whole", name)
		}
		if strings.Count(s.Text, "mktemp") != strings.Count(stage, "mktemp") {
			t.Errorf("the %s script stages a file of its own, not through the staging", name)
		}
	}
	// Every script, Zap's own and the kinds' (which this test binary's
	// ops_test files link, kinds_test.go), expands whole.
	for _, name := range Names() {
		s, ok := Script(plan.OpName(name))
		if !ok {
			t.Errorf("%s: its includes don't expand", name)
		} else if strings.Contains(s.Text, includeMark) {
			t.Errorf("%s: an include is left in the script", name)
		}
	}
}
