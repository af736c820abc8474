package localops

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/pkg/events"
)

// pathFlags open a directory to work inside it: only searching it is
// needed, as for a path.
const pathFlags = unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC

// dirFlags open a directory to act on it (read it, chown, chmod).
const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC

// shared reports whether st is a directory with its sticky bit set or one
// every account may write.
func shared(st *unix.Stat_t) bool {
	return st.Mode&unix.S_ISVTX != 0 || st.Mode&0o002 != 0
}

// openParent opens the directory path is in (openDirs), for an operation
// on path's last name, which it returns with the directory's descriptor and
// whether it is below a shared directory. A path whose last name is empty,
// "." or ".." doesn't name what (a file, a link...): a Permanent error.
func openParent(path, what string) (dirfd int, below bool, name string, err error) {
	name = base(path)
	if name == "" || name == "." || name == ".." {
		return -1, false, "", execute.Errorf(events.Permanent, "%s doesn't name %s", path, what)
	}
	dirfd, below, err = openDirs(parent(path))
	return dirfd, below, name, err
}

// openDirs opens the absolute directory path, making each missing directory
// one at a time inside the one before it, held open. A link in a directory
// on the way is followed, as the kernel follows it. Each directory made is
// given, through its descriptor, the owner and group of the directory it was
// made in, unless it is below a shared directory (see underShared); one that
// isn't the empty directory just made is refused. It returns the descriptor
// of path and whether path is below a shared directory.
func openDirs(path string) (fd int, below bool, err error) {
	if !strings.HasPrefix(path, "/") {
		return -1, false, execute.Errorf(events.Permanent, "%s is not an absolute path", path)
	}
	fd, err = openat(unix.AT_FDCWD, "/", pathFlags)
	if err != nil {
		return -1, false, fmt.Errorf("open /: %w", err)
	}
	defer func() {
		if err != nil {
			unix.Close(fd)
			fd = -1
		}
	}()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fd, false, err
	}
	below = shared(&st)
	walkedUp := false
	at := ""
	for _, part := range strings.Split(path, "/") {
		if part == "" || part == "." {
			continue
		}
		at = join(orRoot(at), part)
		next, err := openat(fd, part, pathFlags)
		if errors.Is(err, unix.ENOENT) && part != ".." {
			if !walkedUp {
				// What is made here takes nothing from a shared directory
				// the path leads through, as written or where it resolves.
				walkedUp = true
				if !below {
					if below, err = underShared(fd); err != nil {
						return fd, false, fmt.Errorf("walk up from %s: %w", parent(at), err)
					}
				}
			}
			next, err = makeDir(fd, part, at, below)
		}
		switch {
		case errors.Is(err, unix.ENOTDIR):
			return fd, false, execute.Errorf(events.Conflict, "%s is in the way: it is not a directory", at)
		case err != nil:
			return fd, false, fmt.Errorf("open the directory %s: %w", at, err)
		}
		unix.Close(fd)
		fd = next
		if err := unix.Fstat(fd, &st); err != nil {
			return fd, false, err
		}
		below = below || shared(&st)
	}
	if !walkedUp && !below {
		if below, err = underShared(fd); err != nil {
			return fd, false, fmt.Errorf("walk up from %s: %w", path, err)
		}
	}
	return fd, below, nil
}

// makeDir makes the directory name inside the directory dirfd (at is its
// path, for messages) and returns it open. Unless below, it is given the
// owner and group of dirfd.
func makeDir(dirfd int, name, at string, below bool) (int, error) {
	if err := unix.Mkdirat(dirfd, name, 0o777); err != nil && !errors.Is(err, unix.EEXIST) {
		return -1, err
	} else if err != nil {
		// Made by someone else meanwhile: use it as found.
		return openat(dirfd, name, pathFlags)
	}
	fd, err := openat(dirfd, name, dirFlags|unix.O_NOFOLLOW)
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
		return -1, execute.Errorf(events.Conflict, "%s changed while it was made: it is not a directory", at)
	}
	if err != nil {
		return -1, err
	}
	var st, up unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, err
	}
	if int(st.Uid) != os.Geteuid() || st.Nlink != 2 || !empty(fd) {
		unix.Close(fd)
		return -1, execute.Errorf(events.Conflict, "%s changed while it was made: it is not the empty directory made there", at)
	}
	if below {
		return fd, nil
	}
	if err := unix.Fstat(dirfd, &up); err != nil {
		unix.Close(fd)
		return -1, err
	}
	if up.Uid != st.Uid || up.Gid != st.Gid {
		if err := unix.Fchown(fd, int(up.Uid), int(up.Gid)); err != nil {
			unix.Close(fd)
			// Not left the writer's: the operation is done again with
			// more privilege (Elevated), which must find it missing.
			unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR)
			return -1, fmt.Errorf("give %s the owner of %s: %w", at, parent(at), err)
		}
	}
	return fd, nil
}

// empty reports whether the directory open at fd holds no name but . and ..
func empty(fd int) bool {
	d, err := openat(fd, ".", dirFlags)
	if err != nil {
		return false
	}
	f := os.NewFile(uintptr(d), ".")
	defer f.Close()
	names, err := f.Readdirnames(1)
	return len(names) == 0 && err != nil
}

// underShared walks up from the directory open at fd by .. to the root and
// reports whether any directory on the way is shared.
func underShared(fd int) (bool, error) {
	var root unix.Stat_t
	if err := unix.Stat("/", &root); err != nil {
		return false, err
	}
	cur, err := openat(fd, ".", pathFlags)
	if err != nil {
		return false, err
	}
	defer func() { unix.Close(cur) }()
	for range 4096 {
		var st unix.Stat_t
		if err := unix.Fstat(cur, &st); err != nil {
			return false, err
		}
		if shared(&st) {
			return true, nil
		}
		if st.Dev == root.Dev && st.Ino == root.Ino {
			return false, nil
		}
		up, err := openat(cur, "..", pathFlags)
		if err != nil {
			return false, err
		}
		var ust unix.Stat_t
		if err := unix.Fstat(up, &ust); err != nil {
			unix.Close(up)
			return false, err
		}
		unix.Close(cur)
		cur = up
		if ust.Dev == st.Dev && ust.Ino == st.Ino {
			return false, nil
		}
	}
	return false, errors.New("too deep")
}

// openat opens name inside dirfd, retrying an interrupted open. O_NONBLOCK
// keeps a fifo from holding it.
func openat(dirfd int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

func orRoot(s string) string {
	if s == "" {
		return "/"
	}
	return s
}

// base returns a path's last name.
func base(path string) string {
	return path[strings.LastIndex(path, "/")+1:]
}

// syncDir makes a change in the directory open at dirfd durable, as far as
// the filesystem and the writer's access let it.
func syncDir(dirfd int) {
	if fd, err := openat(dirfd, ".", dirFlags); err == nil {
		unix.Fsync(fd)
		unix.Close(fd)
	}
}
