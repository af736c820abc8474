package detect

import (
	"fmt"
	"strings"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// OpVerifyPath is the operation that checks a path_exists assertion: its
// script is the probe detection runs and the step a wetrun runs, so both
// read the path the same way.
const OpVerifyPath plan.OpName = "verify-path"

// ExpectStatus is what a command assertion with an expect exits with when
// its command exited 0 but didn't print the expected text. (A command that
// itself exits 86 reads the same: a command's answer carries its status
// alone.)
const ExpectStatus = execute.ExpectStatus

// VerifyPathArgs are the arguments of the verify-path script for a
// path_exists assertion: the path, the file type, the mode, the owner, and
// not_empty (each "" when not asserted).
func VerifyPathArgs(a declaration.Assertion) []string {
	nonEmpty := ""
	if a.NotEmpty != nil && *a.NotEmpty {
		nonEmpty = "not_empty"
	}
	return []string{a.Path, a.FileType, a.Mode, a.Owner, nonEmpty}
}

// AssertionCommand is the command a command assertion runs, at detection
// and again on a wetrun: the run as written when there is no expect; with
// one, the run inside a command substitution whose stdout must contain the
// expected text. A command that exits nonzero exits with its own status;
// one whose stdout lacks the text prints that stdout, then
// execute.ExpectMissed on stderr, and exits ExpectStatus.
func AssertionCommand(a declaration.Assertion) declaration.Text {
	if a.Run == nil {
		return declaration.Text{}
	}
	if a.Expect == nil {
		return *a.Run
	}
	parts := []declaration.Part{{Lit: "# verify: the command below exits 0 and prints the expected text\n__zap_out=$(\n"}}
	parts = append(parts, a.Run.Parts()...)
	parts = append(parts, declaration.Part{Lit: "\n__zap_s=$?\nprintf x\nexit \"$__zap_s\"\n) || exit\n" +
		"case ${__zap_out%x} in\n*" + Quote(*a.Expect) + "*) ;;\n*)\n" +
		"\tprintf '%s' \"${__zap_out%x}\"\n" +
		"\techo '" + execute.ExpectMissed + "' >&2\n" +
		fmt.Sprintf("\texit %d\n", ExpectStatus) +
		"\t;;\nesac\n"})
	return declaration.Concat(parts...)
}

// Verify detects a verify by checking each of its assertions as the login
// user: a path_exists through the verify-path script (a probe of Zap's
// own), a command as an operator's command.
type Verify struct {
	Assertions []declaration.Assertion
	queries    []Query
}

func buildVerify(v *declaration.Verify, env Env) Detector {
	out := &Verify{Assertions: v.Assertions}
	script, ok := ops.Script(OpVerifyPath)
	for i, a := range v.Assertions {
		switch a.Type {
		case declaration.AssertPathExists:
			if !ok {
				return Held("this zap has no verify-path script")
			}
			args := VerifyPathArgs(a)
			quoted := make([]string, len(args))
			for j, s := range args {
				quoted[j] = Quote(s)
			}
			out.queries = append(out.queries, NewProbe(observation.LaneLogin, "set -- "+strings.Join(quoted, " ")+"\n"+script.Text))
		case declaration.AssertCommand:
			text, reason := resolveValue(fmt.Sprintf("assertions[%d].run", i), AssertionCommand(a), env, "\x00")
			if reason != "" {
				return Held(reason)
			}
			out.queries = append(out.queries, Query{Op: OpCommand, Lane: observation.LaneLogin, Command: &Command{Text: text, Timeout: CheckTimeout}})
		default:
			return Held(fmt.Sprintf("assertions[%d].type: this zap can't check a %q assertion", i, a.Type))
		}
	}
	return out
}

// Queries: one per assertion, in order.
func (v *Verify) Queries() []Query { return v.queries }

// Verdict: every assertion holding is converged. One that fails (a path
// that isn't as asserted, a command exiting nonzero or without its expected
// text) makes the verify drifted, each failing assertion a difference that
// names it; a check that gave no answer (timed out, failed to run, a
// verify-path that couldn't read the path) holds the verify.
func (v *Verify) Verdict(a []Answer) Result {
	if len(a) != len(v.queries) {
		return hold(fmt.Sprintf("%d answers for the %d assertions", len(a), len(v.queries)))
	}
	var drift []observation.Difference
	for i, as := range v.Assertions {
		r := a[i]
		what := fmt.Sprintf("assertions[%d]", i)
		switch {
		case r.Status == StatusTimedOut:
			return hold(fmt.Sprintf("%s: the check timed out after %ds", what, v.queries[i].Command.Timeout))
		case r.Status != StatusOK:
			return hold(what + ": " + problem(r, "the assertion", v.queries[i].Command.Timeout))
		case r.Exit == 0:
			continue
		}
		d := observation.Difference{Field: what, Desired: as.Describe()}
		switch {
		case as.Type == declaration.AssertPathExists && r.Exit == 1:
			d.Observed = strings.Join(strings.Split(strings.TrimRight(r.Output, "\n"), "\n"), "; ")
		case as.Type == declaration.AssertPathExists:
			return hold(fmt.Sprintf("%s: checking %s failed (exit %d)", what, as.Path, r.Exit))
		case as.Expect != nil && r.Exit == ExpectStatus:
			d.Observed = "its stdout doesn't contain the expected text"
		default:
			d.Observed = fmt.Sprintf("exited %d", r.Exit)
		}
		drift = append(drift, d)
	}
	if len(drift) > 0 {
		return drifted(drift)
	}
	return converged()
}
