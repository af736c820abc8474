package review

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

// Ask shows the plan (as o says: its diffs under --diff) and the question
// on out and reads the answer from tty, the terminal (AskHash).
func Ask(tty *os.File, out io.Writer, flush func(), p *plan.Plan, reason string, o render.PlanOptions) (bool, error) {
	o.Mode = render.ModeRefused
	return AskHash(tty, out, flush, p.Hash, reason, func(w io.Writer) { render.Plan(w, p, o) })
}

// AskHash is the one review question, zap apply's and zap deploy's: show
// writes the plan on out, then the question asks for the first eight
// characters of hash, read from tty, the terminal; flush writes what out
// holds back before zap waits. Input typed before the question appears is
// discarded first, so nothing typed ahead (a y, an earlier run's answer)
// answers it. Only those eight characters, in either case, say yes; an
// error reading the answer is an error, not a no.
func AskHash(tty *os.File, out io.Writer, flush func(), hash, reason string, show func(io.Writer)) (bool, error) {
	return ask(tty, out, flush, hash, show,
		fmt.Sprintf("\nThis plan has no review (%s).\n", reason),
		"To execute exactly this plan, type the first eight characters of its plan_hash: ")
}

// ask is AskHash's and AskCombined's question: show, then note, then
// (what was typed ahead discarded before the question appears, not after:
// an answer typed once it shows must be read) question, and yes only for
// the first eight characters of hash, in either case.
func ask(tty *os.File, out io.Writer, flush func(), hash string, show func(io.Writer), note, question string) (bool, error) {
	show(out)
	fmt.Fprint(out, note)
	if err := unix.IoctlSetInt(int(tty.Fd()), unix.TCFLSH, unix.TCIFLUSH); err != nil {
		return false, fmt.Errorf("discard the input typed ahead: %w", err)
	}
	fmt.Fprint(out, question)
	flush()
	answer, err := readLine(tty)
	if err != nil {
		return false, fmt.Errorf("read the answer: %w", err)
	}
	fmt.Fprintln(out)
	answer = strings.TrimSpace(answer)
	return len(answer) == 8 && len(hash) >= 8 && strings.EqualFold(answer, hash[:8]), nil
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
