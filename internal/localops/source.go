package localops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/target"
	"github.com/zap-go/zap/pkg/events"
)

var _ execute.SourceReader = (*Host)(nil)

// ReadSource reads a put's source file natively, and, when that is denied
// and Zap doesn't run as root, once through sudo: the read operation's
// script (internal/ops read.sh) under sudo -n, its bytes on stdout. Each
// error says what is wrong with the source, for "the source PATH ...".
func (h *Host) ReadSource(ctx context.Context, path string) ([]byte, error) {
	data, err := readSource(path)
	if denied(err) && os.Geteuid() != 0 {
		return sudoRead(ctx, path)
	}
	if err != nil && denied(err) {
		return nil, execute.Errorf(events.Permission, "can't be read: %v", err)
	}
	return data, err
}

// readSource reads the regular file of its own at path: its name read
// without following a link must be a regular file, and what is opened
// (O_NOFOLLOW, O_NONBLOCK: neither a link nor a fifo holds it) the same
// file, with one link, of at most execute.SourceLimit bytes.
func readSource(path string) ([]byte, error) {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
			return nil, execute.Errorf(events.NotFound, "doesn't exist")
		}
		return nil, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, execute.Errorf(events.Conflict, "is %s, not a regular file of its own", describeMode(st.Mode))
	}
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			return nil, execute.Errorf(events.Conflict, "changed while it was opened")
		}
		return nil, err
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	var got unix.Stat_t
	if err := unix.Fstat(fd, &got); err != nil {
		return nil, err
	}
	switch {
	case got.Mode&unix.S_IFMT != unix.S_IFREG || got.Dev != st.Dev || got.Ino != st.Ino:
		return nil, execute.Errorf(events.Conflict, "changed while it was opened")
	case got.Nlink != 1:
		return nil, execute.Errorf(events.Conflict, "has %d hard links, so Zap doesn't read it: replace it with a copy of its own (a single link)", got.Nlink)
	case got.Size > execute.SourceLimit:
		return nil, execute.Errorf(events.Permanent, "is larger than 16 MiB")
	}
	data, err := io.ReadAll(io.LimitReader(f, execute.SourceLimit+1))
	if err != nil {
		return nil, fmt.Errorf("can't be read: %w", err)
	}
	if len(data) > execute.SourceLimit {
		return nil, execute.Errorf(events.Permanent, "is larger than 16 MiB")
	}
	return data, nil
}

// describeMode is a file type for a sentence: "a fifo", "a directory".
func describeMode(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return "a symbolic link"
	case unix.S_IFDIR:
		return "a directory"
	case unix.S_IFIFO:
		return "a fifo"
	case unix.S_IFSOCK:
		return "a socket"
	case unix.S_IFCHR:
		return "a character device"
	case unix.S_IFBLK:
		return "a block device"
	}
	return "something of an unknown type"
}

// sudoRead runs the read script under sudo -n, with no terminal.
func sudoRead(ctx context.Context, path string) ([]byte, error) {
	input, err := target.ReadInput()
	if err != nil {
		return nil, err
	}
	sudo, err := exec.LookPath("sudo")
	if err != nil {
		return nil, execute.Errorf(events.Permission, "can't be read as you, and there is no sudo on this machine")
	}
	ctx, cancel := context.WithTimeout(ctx, target.ReadLimit)
	defer cancel()
	// The path on the argv, the limit on stdin (ops.Input).
	cmd := exec.CommandContext(ctx, sudo, "-n", "sh", "-s", "--", path)
	cmd.Stdin = strings.NewReader(input)
	var out execute.SourceBuffer
	stderr := execute.OutputTail(ctx)
	cmd.Stdout, cmd.Stderr = &out, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return nil, execute.Errorf(events.Transient, "can't be read: the read through sudo timed out or was interrupted")
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		return nil, execute.ReadFailed(ee.ExitCode(), stderr.String())
	case err != nil:
		return nil, fmt.Errorf("can't be read through sudo: %w", err)
	}
	return out.Source()
}
