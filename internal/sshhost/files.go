package sshhost

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// The bounds of the files an ssh config names that Zap reads: a private
// key is a few KiB (an RSA key of 16384 bits under 13 KiB), a known hosts
// file a line of under 1 KiB per host key.
const (
	maxIdentityFile   = 1 << 20
	maxKnownHostsFile = 64 << 20
)

// errNotRegular is a file that is there but isn't a regular file.
var errNotRegular = errors.New("not a regular file")

// openRegular opens path for reading when it is a regular file of at most
// max bytes. It opens without blocking (a fifo with no writer would hold
// the open forever) and checks what it opened, not the name, so a device
// such as /dev/zero or a fifo is refused before a byte is read. A missing
// file is the error of os.Open (errors.Is fs.ErrNotExist).
func openRegular(path string, max int64) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%w (it is %s)", errNotRegular, fileKind(fi.Mode()))
	}
	if fi.Size() > max {
		f.Close()
		return nil, fmt.Errorf("it is %d bytes, more than the %d Zap reads", fi.Size(), max)
	}
	return f, nil
}

// readRegular is the content of the regular file path, of at most max
// bytes (openRegular).
func readRegular(path string, max int64) ([]byte, error) {
	f, err := openRegular(path, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err == nil && int64(len(data)) > max {
		err = fmt.Errorf("it grew past the %d bytes Zap reads", max)
	}
	return data, err
}

// fileKind names the kind of file a mode is, for a refusal.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a fifo"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "of another kind"
}
