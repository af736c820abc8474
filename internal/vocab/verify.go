package vocab

import (
	"fmt"

	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// OpVerifyPath is the operation that checks a path_exists assertion: its
// script is the probe detection runs and the step a wetrun runs, so both
// read the path the same way.
const OpVerifyPath plan.OpName = "verify-path"

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

// ExpectStatus is what a verify's command assertion with an expected text
// exits with when its command exited 0 but didn't print the text
// (AssertionCommand wraps it so), and ExpectMissed the line the wrapper
// writes last on stderr then. Neither reaches the user: the failure says
// the text wasn't found. (A command that itself exits 86 reads the same at
// detection: a command's answer carries its status alone.)
const (
	ExpectStatus = 86
	ExpectMissed = "zap: the command exited 0, but its stdout does not contain the expected text"
)

// AssertionCommand is the command a command assertion runs, at detection
// and again on a wetrun: the run as written when there is no expect; with
// one, the run inside a command substitution whose stdout must contain the
// expected text. A command that exits nonzero exits with its own status;
// one whose stdout lacks the text prints that stdout, then ExpectMissed on
// stderr, and exits ExpectStatus.
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
		"\techo '" + ExpectMissed + "' >&2\n" +
		fmt.Sprintf("\texit %d\n", ExpectStatus) +
		"\t;;\nesac\n"})
	return declaration.Concat(parts...)
}
