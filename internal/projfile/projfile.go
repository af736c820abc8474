// Package projfile reads the files of a config's project that the config
// names for content (project_text, project_template and project_bytes, in
// @zap-go/zap): only inside the project, by a descriptor of its root, so
// the evaluating process reads them behind its seccomp filter (which lets
// openat2 through under that descriptor alone) and its Landlock walls.
//
// A file is opened with openat2 under the root with RESOLVE_BENEATH and
// RESOLVE_NO_MAGICLINKS: a path, or a symbolic link on the way, that leads
// out of the project fails in the kernel, not in a check that a later
// change could slip past; a link that stays inside is followed. The file
// is first opened as a path only (O_PATH) and must be a regular file: a
// fifo, a device, a socket or a directory is refused without being opened
// for reading, so no open blocks or acts on a device. It is then opened
// for reading, non-blocking, and must be the same file. A file over
// MaxFile bytes is refused: larger content belongs to remote content.
package projfile

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// MaxFile is the largest project file read, in bytes (4 MiB): a quarter of
// the 16 MiB a write holds in memory, so a few of them fit a declaration
// (64 MiB, with base64 for bytes) and the plan that carries them again.
const MaxFile = 4 << 20

// Dir is a project's root, held open to read its files under.
type Dir struct {
	root string
	fd   int
}

// Open holds the project root open (O_PATH): the descriptor the seccomp
// filter admits openat2 under.
func Open(root string) (*Dir, error) {
	fd, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: root, Err: err}
	}
	return &Dir{root: root, fd: fd}, nil
}

// FD is the root's descriptor.
func (d *Dir) FD() int { return d.fd }

// Root is the project's root.
func (d *Dir) Root() string { return d.root }

// Close lets the root go.
func (d *Dir) Close() error { return unix.Close(d.fd) }

// Error is a project file that can't be read: the config's problem.
type Error struct {
	File string
	Msg  string
}

func (e *Error) Error() string { return e.File + ": " + e.Msg }

const resolve = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS

// Read returns the bytes of the file at rel, a clean path relative to the
// root, and its absolute path.
func (d *Dir) Read(rel string) ([]byte, string, error) {
	abs := filepath.Join(d.root, rel)
	fail := func(format string, a ...any) ([]byte, string, error) {
		return nil, abs, &Error{File: rel, Msg: fmt.Sprintf(format, a...)}
	}
	if !filepath.IsLocal(rel) || filepath.Clean(rel) != rel {
		return fail("is not a clean path inside the project")
	}
	pfd, err := unix.Openat2(d.fd, rel, &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: resolve})
	if err != nil {
		return d.openFailed(rel, abs, err)
	}
	defer unix.Close(pfd)
	var st unix.Stat_t
	if err := unix.Fstat(pfd, &st); err != nil {
		return fail("can't be read: %v", err)
	}
	if msg := notRegular(st.Mode); msg != "" {
		return fail("%s, not a regular file: a project file for content is a regular file", msg)
	}
	if st.Size > MaxFile {
		return fail("is %d bytes, more than the %d (4 MiB) a project file for content may be: place larger content as remote content, pinned by its blake3", st.Size, MaxFile)
	}
	fd, err := unix.Openat2(d.fd, rel, &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_NONBLOCK | unix.O_NOCTTY | unix.O_CLOEXEC, Resolve: resolve})
	if err != nil {
		return d.openFailed(rel, abs, err)
	}
	defer unix.Close(fd)
	var st2 unix.Stat_t
	if err := unix.Fstat(fd, &st2); err != nil {
		return fail("can't be read: %v", err)
	}
	if st2.Dev != st.Dev || st2.Ino != st.Ino || notRegular(st2.Mode) != "" {
		return fail("changed while it was read")
	}
	buf := make([]byte, 0, st2.Size+1)
	for {
		if len(buf) > MaxFile {
			return fail("grew past the %d (4 MiB) a project file for content may be while it was read", MaxFile)
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fail("can't be read: %v", err)
		}
		if n == 0 {
			return buf, abs, nil
		}
		buf = buf[:len(buf)+n]
	}
}

// openFailed says why openat2 refused rel.
func (d *Dir) openFailed(rel, abs string, err error) ([]byte, string, error) {
	var msg string
	switch {
	case errors.Is(err, unix.EXDEV):
		msg = "leads outside the project (through .. or a symbolic link): a config reads only its project's files"
	case errors.Is(err, unix.ENOENT):
		msg = "no such file in the project"
	case errors.Is(err, unix.ENOTDIR):
		msg = "a part of the path is not a directory"
	case errors.Is(err, unix.ELOOP):
		msg = "too many symbolic links on the way"
	case errors.Is(err, unix.EACCES), errors.Is(err, unix.EPERM):
		msg = "can't be read: permission denied"
	default:
		msg = "can't be read: " + err.Error()
	}
	return nil, abs, &Error{File: rel, Msg: msg}
}

// notRegular names what a file that isn't regular is, "" for a regular one.
func notRegular(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFREG:
		return ""
	case unix.S_IFIFO:
		return "is a fifo"
	case unix.S_IFCHR, unix.S_IFBLK:
		return "is a device"
	case unix.S_IFSOCK:
		return "is a socket"
	case unix.S_IFDIR:
		return "is a directory"
	}
	return "is not a regular file"
}
