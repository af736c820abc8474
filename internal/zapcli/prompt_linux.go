package zapcli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/zap-go/zap/internal/render"
	"github.com/zap-go/zap/pkg/plan"
)

// terminal returns stdin when both stdin and stderr are terminals: the only
// case in which a wetrun with no review asks instead of refusing.
func (a *app) terminal() (*os.File, bool) {
	in, ok := a.stdin.(*os.File)
	if !ok {
		return nil, false
	}
	errw, ok := a.rawStderr.(*os.File)
	if !ok {
		return nil, false
	}
	return in, isTerminal(in) && isTerminal(errw)
}

func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// ask shows the plan and the question on stderr and reads the answer from
// the terminal. Input typed before the question appears is discarded first,
// so nothing typed ahead (a y, an earlier run's answer) answers it. Only the
// first eight characters of the plan_hash, in either case, say yes.
func (a *app) ask(tty *os.File, p *plan.Plan, reason string) (bool, error) {
	render.Plan(a.stderr, p, render.PlanOptions{Mode: render.ModeRefused})
	fmt.Fprintf(a.stderr, "\nThis plan has no review (%s).\n", reason)
	// Discard what was typed ahead before the question appears, not
	// after: an answer typed once it shows must be read.
	if err := unix.IoctlSetInt(int(tty.Fd()), unix.TCFLSH, unix.TCIFLUSH); err != nil {
		return false, failf(1, "discard the input typed ahead: %v", err)
	}
	fmt.Fprint(a.stderr, "To execute exactly this plan, type the first eight characters of its plan_hash: ")
	a.flushOutputs()
	answer, err := readLine(tty)
	if err != nil {
		return false, failf(1, "read the answer: %v", err)
	}
	fmt.Fprintln(a.stderr)
	answer = strings.TrimSpace(answer)
	return len(answer) == 8 && strings.EqualFold(answer, p.Hash[:8]), nil
}

// readLine reads up to a newline, byte by byte so nothing past it is
// consumed. The end of the input is an empty answer.
func readLine(r io.Reader) (string, error) {
	var b strings.Builder
	buf := make([]byte, 1)
	for b.Len() < 4096 {
		n, err := r.Read(buf)
		if n == 1 {
			if buf[0] == '\n' {
				break
			}
			b.WriteByte(buf[0])
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", err
		}
	}
	return b.String(), nil
}
