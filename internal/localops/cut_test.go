package localops

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/mask"
	"github.com/zap-go/zap/internal/scripttest"
	"github.com/zap-go/zap/pkg/plan"
)

// cutScript prints the secret on stdout (or stderr) and then enough dots
// that the output's kept tail (execute.OutputLimit) is cut off bytes into
// the secret, and fails.
func cutScript(off int, redirect string) string {
	after := execute.OutputLimit - len(scripttest.CutSecret) + off
	return fmt.Sprintf("{ printf 'before '; printf '%%s' %s; head -c %d /dev/zero | tr '\\0' .; }%s\nexit 3\n", scripttest.CutSecret, after, redirect)
}

// TestRunnerOutputHoldsNoPartOfASecretWhereverTheCutFalls runs a command
// and an operation printing a secret and then more than the kept output
// holds, the cut falling at every offset of the secret (from just before
// it to just after it), on stdout and on stderr: no event's output holds a
// byte of it, and no event anywhere four bytes of it in a row.
func TestRunnerOutputHoldsNoPartOfASecretWhereverTheCutFalls(t *testing.T) {
	m := mask.New(map[string]string{"CUT_TOKEN": scripttest.CutSecret})
	h := host()
	for _, redirect := range []string{"", " >&2"} {
		for off := -1; off <= len(scripttest.CutSecret)+1; off++ {
			script := cutScript(off, redirect)
			p := &execute.Prepared{Hash: strings.Repeat("a", 64), Changes: []execute.PreparedChange{{
				Change: &plan.Change{ID: "cut", Type: "script", Action: "create"},
				Steps: []execute.PreparedStep{
					{Summary: "a command", Command: &execute.Command{Script: script}},
				},
			}, {
				Change: &plan.Change{ID: "op", Type: "script", Action: "create"},
				Steps: []execute.PreparedStep{
					{Summary: "an operation", Op: &execute.ZapOp{Name: "test", Script: script, Privilege: plan.Login}},
				},
			}}}
			for _, one := range [][]execute.PreparedChange{p.Changes[:1], p.Changes[1:]} {
				var out strings.Builder
				r := &execute.Runner{Host: h, Events: &out, Mask: m}
				if _, err := r.Run(context.Background(), &execute.Prepared{Hash: p.Hash, Changes: one}); err != nil {
					t.Fatal(err)
				}
				for _, bad := range scripttest.CutLeaks(out.String(), execute.OutputLimit, off) {
					t.Errorf("%s%s, cut at %d: %s", one[0].Change.ID, redirect, off, bad)
				}
			}
		}
	}
}
