// Package verify is the verify kind: assertions checked at their place in
// the run. Its wire form is pkg/declaration/kind_verify.go; all else of it
// is here: its reads (Verify, the detector), its steps, its verify-path
// operation (scripts/verify-path.sh, the probe detection runs and the step
// a wetrun runs) and its wording, the command a command assertion runs,
// and their tests. The preview shows each step as the assertion it checks
// (declaration.Resource.Assertions). internal/kinds lists Kind.
package verify

import (
	"embed"
	"fmt"

	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/internal/ops/opcmd"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

//go:embed scripts/*.sh
var scripts embed.FS

// Kind is the verify kind, as the login user.
var Kind = kind.Def[*declaration.Verify]{
	Name: declaration.KindVerify, Read: NewVerify, Plan: steps, As: plan.Login,
	Ops: scripts, Word: pathWords,
	Doc: doc,
}

// steps: one per assertion, in order, each checked again as the login
// user exactly as detection checked it: a path_exists is the verify-path
// operation (the script detection ran as its probe), a command is the
// operator's command detection ran (wrapped to look for its expected text,
// when it has one), under the check's limit. A failing assertion fails the
// step, so the change fails there and every later change is skipped.
func steps(v *declaration.Verify, _ kind.Planned) ([]plan.Step, error) {
	return kind.StepsOf(v.Assertions, assertionStep), nil
}

// assertionStep is the step that checks a.
func assertionStep(a declaration.Assertion) plan.Step {
	if a.Type == declaration.AssertPathExists {
		return plan.Step{Type: plan.StepOp, Op: &plan.Op{Name: OpPath, Args: PathArgs(a), Privilege: plan.Login, Timeout: vocab.ProbeTimeout}}
	}
	return plan.Step{Type: plan.StepCommand, Command: &plan.Command{Run: AssertionCommand(a), Privilege: plan.Login, Timeout: vocab.CheckTimeout}}
}

// pathWords: the path_exists assertion a verify-path's arguments
// (PathArgs) check, as a plan's # line says it.
func pathWords(op *plan.Op) (opcmd.Words, bool) {
	if op.Name != OpPath || len(op.Args) != 5 {
		return opcmd.Words{}, false
	}
	notEmpty := op.Args[4] == "not_empty"
	a := declaration.Assertion{Type: declaration.AssertPathExists, Path: op.Args[0], FileType: op.Args[1],
		Mode: op.Args[2], Owner: op.Args[3], NotEmpty: &notEmpty}
	return opcmd.Words{Text: a.Describe(), Assertion: true}, true
}

// OpPath is the operation that checks a path_exists assertion: its
// script is the probe detection runs and the step a wetrun runs, so both
// read the path the same way.
const OpPath plan.OpName = "verify-path"

// PathArgs are the arguments of the verify-path script for a
// path_exists assertion: the path, the file type, the mode, the owner, and
// not_empty (each "" when not asserted).
func PathArgs(a declaration.Assertion) []string {
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
// one whose stdout lacks the text prints that stdout, then vocab.ExpectMissed on
// stderr, and exits vocab.ExpectStatus.
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
		"case ${__zap_out%x} in\n*" + vocab.Quote(*a.Expect) + "*) ;;\n*)\n" +
		"\tprintf '%s' \"${__zap_out%x}\"\n" +
		"\techo '" + vocab.ExpectMissed + "' >&2\n" +
		fmt.Sprintf("\texit %d\n", vocab.ExpectStatus) +
		"\t;;\nesac\n"})
	return declaration.Concat(parts...)
}
