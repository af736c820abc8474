package zapexec

import (
	"bufio"
	"fmt"
	"io"

	"github.com/zap-go/zap/internal/escape"
	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/exit"
)

// dryRun is a run without --wetrun: the plan passed every check, and
// zap-exec says on stdout what a wetrun would do, change by change with each
// step as a report words it (control and invisible characters escaped),
// then that nothing changed:
//
//	would create conf (file)
//	  put ~/app/conf.txt (mode 640, as alice)
//	nothing changed: 1 change would run with --wetrun
func dryRun(stdout io.Writer, p *execute.Prepared) error {
	w := bufio.NewWriter(stdout)
	for _, c := range p.Changes {
		fmt.Fprintf(w, "would %s %s (%s)\n", c.Change.Action, escape.Line(c.Change.ID), c.Change.Type)
		for _, s := range c.Steps {
			fmt.Fprintf(w, "  %s\n", escape.Line(s.Summary))
		}
	}
	switch n := len(p.Changes); n {
	case 0:
		fmt.Fprintln(w, "nothing changed: the plan has no change")
	case 1:
		fmt.Fprintln(w, "nothing changed: 1 change would run with --wetrun")
	default:
		fmt.Fprintf(w, "nothing changed: %d changes would run with --wetrun\n", n)
	}
	if err := w.Flush(); err != nil {
		return exit.InWorld(fmt.Errorf("write what would run: %w", err))
	}
	return nil
}
