package sshhost_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/mask"
	"github.com/zap-go/zap/internal/scripttest"
	"github.com/zap-go/zap/pkg/plan"
)

// TestRunnerOutputOverSSHHoldsNoPartOfASecretWhereverTheCutFalls runs, over
// the loopback sshd, an operation in a batch (after a dir) and a command in
// a session of its own, each printing a secret and then more than the kept
// output holds, the cut falling at every offset of the secret (from just
// before it to just after it), on stdout and on stderr: no event's output
// holds a byte of it, and no event anywhere four bytes of it in a row.
func TestRunnerOutputOverSSHHoldsNoPartOfASecretWhereverTheCutFalls(t *testing.T) {
	pt := newPipeTarget(t)
	m := mask.New(map[string]string{"CUT_TOKEN": scripttest.CutSecret})
	// What a session prints before the step's own output (the sshd's
	// notice that the account has no home) comes after stdout in the
	// output, and is left out of what is searched.
	notice := stepOutput(t, pt.e, "exit 3\n")
	for _, redirect := range []string{"", " >&2"} {
		for off := -1; off <= len(scripttest.CutSecret)+1; off++ {
			after := execute.OutputLimit - len(scripttest.CutSecret) + off
			if redirect == "" {
				after -= len(notice)
			}
			script := fmt.Sprintf("{ printf 'before '; printf '%%s' %s; head -c %d /dev/zero | tr '\\0' .; }%s\nexit 3\n", scripttest.CutSecret, after, redirect)
			for _, c := range []execute.PreparedChange{{
				Change: &plan.Change{ID: "batched", Type: "script", Action: "create"},
				Steps: []execute.PreparedStep{
					{Summary: "a dir", Dir: &execute.Dir{Path: pt.dir + "/sub", Mode: "755"}},
					{Summary: "an operation", Op: &execute.ZapOp{Name: "test", Script: script, Privilege: plan.Login, Timeout: time.Minute}},
				},
			}, {
				Change: &plan.Change{ID: "alone", Type: "script", Action: "create"},
				Steps:  []execute.PreparedStep{{Summary: "a command", Command: &execute.Command{Script: script}}},
			}} {
				var out strings.Builder
				r := &execute.Runner{Host: pt.e, Events: &out, Mask: m}
				if _, err := r.Run(context.Background(), &execute.Prepared{Hash: strings.Repeat("a", 64), Changes: []execute.PreparedChange{c}}); err != nil {
					t.Fatal(err)
				}
				for _, bad := range scripttest.CutLeaks(strings.ReplaceAll(out.String(), jsonInner(notice), ""), execute.OutputLimit, off) {
					t.Errorf("%s%s, cut at %d: %s", c.Change.ID, redirect, off, bad)
				}
			}
		}
	}
}

// stepOutput is the output a command step failing with script has.
func stepOutput(t *testing.T, h execute.Host, script string) string {
	t.Helper()
	var ee *execute.ExitError
	if err := h.Run(context.Background(), &execute.Command{Script: script}); !errors.As(err, &ee) {
		t.Fatalf("%q: %v, want it to exit", script, err)
	}
	return ee.Output
}

// jsonInner is s as it is in a JSON string.
func jsonInner(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}
