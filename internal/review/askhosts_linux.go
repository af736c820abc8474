package review

import (
	"fmt"
	"io"
	"os"
)

// AskCombined is the one review question of a wetrun over several hosts:
// show writes the plans of the hosts with no review and the summary, then
// the question asks once, for the first eight characters of combined, the
// hosts' combined plan_hash, read from tty as AskHash reads its answer
// (what was typed ahead discarded; only those eight characters, in either
// case, say yes).
func AskCombined(tty *os.File, out io.Writer, flush func(), combined, reason string, show func(io.Writer)) (bool, error) {
	return ask(tty, out, flush, combined, show,
		fmt.Sprintf("\nThese plans have no review (%s).\n", reason),
		"To execute exactly these plans on every host, type the first eight characters of their combined plan_hash: ")
}
