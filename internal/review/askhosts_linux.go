package review

import (
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// AskCombined is the one review question of a wetrun over several hosts:
// show writes the plans of the hosts with no review and the summary, then
// the question asks once, for the first eight characters of combined, the
// hosts' combined plan_hash, read from tty as AskHash reads its answer
// (what was typed ahead discarded; only those eight characters, in either
// case, say yes).
func AskCombined(tty *os.File, out io.Writer, flush func(), combined, reason string, show func(io.Writer)) (bool, error) {
	show(out)
	fmt.Fprintf(out, "\nThese plans have no review (%s).\n", reason)
	if err := unix.IoctlSetInt(int(tty.Fd()), unix.TCFLSH, unix.TCIFLUSH); err != nil {
		return false, fmt.Errorf("discard the input typed ahead: %w", err)
	}
	fmt.Fprint(out, "To execute exactly these plans on every host, type the first eight characters of their combined plan_hash: ")
	flush()
	answer, err := readLine(tty)
	if err != nil {
		return false, fmt.Errorf("read the answer: %w", err)
	}
	fmt.Fprintln(out)
	answer = strings.TrimSpace(answer)
	return len(answer) == 8 && len(combined) >= 8 && strings.EqualFold(answer, combined[:8]), nil
}
