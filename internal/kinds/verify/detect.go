package verify

import (
	"fmt"
	"strings"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// Verify detects a verify by checking each of its assertions as the login
// user: a path_exists through the verify-path script (a probe of Zap's
// own), a command as an operator's command.
type Verify struct {
	Assertions []declaration.Assertion
	queries    []detect.Query
}

// NewVerify builds the detector of the verify v (kind.Def.Read).
func NewVerify(v *declaration.Verify, env detect.Env) detect.Detector {
	out := &Verify{Assertions: v.Assertions}
	script, ok := ops.Script(OpPath)
	for i, a := range v.Assertions {
		switch a.Type {
		case declaration.AssertPathExists:
			if !ok {
				return detect.Held("this zap has no verify-path script")
			}
			args := PathArgs(a)
			quoted := make([]string, len(args))
			for j, s := range args {
				quoted[j] = vocab.Quote(s)
			}
			out.queries = append(out.queries, detect.NewProbe(observation.LaneLogin, "set -- "+strings.Join(quoted, " ")+"\n"+script.Text))
		case declaration.AssertCommand:
			text, reason := detect.ResolveValue(fmt.Sprintf("assertions[%d].run", i), AssertionCommand(a), env, "\x00")
			if reason != "" {
				return detect.Held(reason)
			}
			out.queries = append(out.queries, detect.Query{Op: detect.OpCommand, Lane: observation.LaneLogin, Command: &detect.Command{Text: text, Timeout: vocab.CheckTimeout}})
		default:
			return detect.Held(fmt.Sprintf("assertions[%d].type: this zap can't check a %q assertion", i, a.Type))
		}
	}
	return out
}

// Queries: one per assertion, in order.
func (v *Verify) Queries() []detect.Query { return v.queries }

// Verdict: every assertion holding is converged. One that fails (a path
// that isn't as asserted, a command exiting nonzero or without its expected
// text) makes the verify drifted, each failing assertion a difference that
// names it; a check that gave no answer (timed out, failed to run, a
// verify-path that couldn't read the path) holds the verify.
func (v *Verify) Verdict(a []detect.Answer) detect.Result {
	if len(a) != len(v.queries) {
		return detect.Holding(fmt.Sprintf("%d answers for the %d assertions", len(a), len(v.queries)))
	}
	var drift []observation.Difference
	for i, as := range v.Assertions {
		r := a[i]
		what := fmt.Sprintf("assertions[%d]", i)
		switch {
		case r.Status == detect.StatusTimedOut:
			return detect.Holding(fmt.Sprintf("%s: the check timed out after %ds", what, v.queries[i].Command.Timeout))
		case r.Status != detect.StatusOK:
			return detect.Holding(what + ": " + detect.Problem(r, "the assertion", v.queries[i].Command.Timeout))
		case r.Exit == 0:
			continue
		}
		d := observation.Difference{Field: what, Desired: as.Describe()}
		switch {
		case as.Type == declaration.AssertPathExists && r.Exit == 1:
			d.Observed = strings.Join(strings.Split(strings.TrimRight(r.Output, "\n"), "\n"), "; ")
		case as.Type == declaration.AssertPathExists:
			return detect.Holding(fmt.Sprintf("%s: checking %s failed (exit %d)", what, as.Path, r.Exit))
		case as.Expect != nil && r.Exit == vocab.ExpectStatus:
			d.Observed = "its stdout doesn't contain the expected text"
		default:
			d.Observed = fmt.Sprintf("exited %d", r.Exit)
		}
		drift = append(drift, d)
	}
	if len(drift) > 0 {
		return detect.Drifted(drift)
	}
	return detect.Converged()
}
