package zapcli

import (
	"flag"
	"io"
	"os"

	"github.com/peterbourgon/ff/v3/ffcli"
	"golang.org/x/sys/unix"
)

// terminal returns stdin when both stdin and stderr are terminals: the only
// case in which a wetrun with no review asks instead of refusing, and in
// which zap runs sudo -v before a pass that may need root.
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

// screen returns w as a terminal zap may draw on: a terminal, with TERM
// set and not dumb. Colour and a wetrun's live status need one.
func (a *app) screen(w io.Writer) (*os.File, bool) {
	f, ok := w.(*os.File)
	if !ok || !isTerminal(f) {
		return nil, false
	}
	if term := a.getenv("TERM"); term == "" || term == "dumb" {
		return nil, false
	}
	return f, true
}

// useColour turns colour on for stdout and stderr, each when it is a
// screen, unless NO_COLOR is set (to anything but empty), --no-color was
// given, or the command writes JSON (--json). root is the parsed command
// line.
func (a *app) useColour(root *ffcli.Command) {
	off := a.noColor || a.getenv("NO_COLOR") != "" || jsonGiven(root)
	_, out := a.screen(a.rawStdout)
	_, errw := a.screen(a.rawStderr)
	a.outColour.SetOn(!off && out)
	a.errColour.SetOn(!off && errw)
}

// jsonGiven reports whether the command line gave --json to any command.
func jsonGiven(c *ffcli.Command) bool {
	if c.FlagSet != nil {
		if f := c.FlagSet.Lookup("json"); f != nil {
			if g, ok := f.Value.(flag.Getter); ok && g.Get() == true {
				return true
			}
		}
	}
	for _, s := range c.Subcommands {
		if jsonGiven(s) {
			return true
		}
	}
	return false
}

// statusScreen returns stderr as a screen a wetrun's live status is drawn
// on, with its width in columns (0 when the terminal doesn't say).
func (a *app) statusScreen() (*os.File, int, bool) {
	f, ok := a.screen(a.rawStderr)
	if !ok {
		return nil, 0, false
	}
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return f, 0, true
	}
	return f, int(ws.Col), true
}
