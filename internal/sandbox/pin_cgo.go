//go:build cgo

package sandbox

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// taskDir holds /proc/PID/task open for the life of the process; see
// pinTaskDir.
var taskDir = -1

// pinTaskDir keeps the dentry of /proc/PID/task from being evicted, in a
// cgo build only. There go-landlock reaches every thread through libpsx's
// C code, which lists /proc/PID/task after each all-threads system call
// and SIGKILLs the process ("failed to read /proc/PID/task - aborting")
// when it can't open it. go-landlock lets that directory be read by a rule
// on its inode; but procfs makes a new inode each time the dentry is
// looked up afresh, so when the kernel evicts the unused dentry between
// the rule's creation and libpsx's open (memory pressure; drop_caches
// does it at will), the new inode has no rule, Landlock denies the open
// and the process dies. An open descriptor keeps the dentry, and so the
// inode the rule names. A static build (CGO_ENABLED=0, as make build
// ships) uses syscall.AllThreadsSyscall and never lists the directory.
func pinTaskDir() error {
	if taskDir >= 0 {
		return nil
	}
	fd, err := unix.Open(fmt.Sprintf("/proc/%d/task", os.Getpid()), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("hold /proc/%d/task open for libpsx: %w", os.Getpid(), err)
	}
	taskDir = fd
	return nil
}
