package envpass

import (
	"os"

	"golang.org/x/sys/unix"
)

func dupFD(f *os.File) (int, error) { return unix.Dup(int(f.Fd())) }
func closeFD(fd int) error          { return unix.Close(fd) }
