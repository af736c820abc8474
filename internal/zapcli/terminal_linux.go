package zapcli

import (
	"os"

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
