package localops

import (
	"errors"
	"io"
	"os"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// stagedHook, when a test sets it, is called with the staged name once a
// put's file is staged and locked, and once a link is made beside its
// staged file: a test stops a writer there, to kill it or to race it.
var stagedHook func(name string)

// linkSuffix follows a staged file's name to name the link a link operation
// makes beside it before renaming it into place.
const linkSuffix = ".ln"

// cleanHook, when a test sets it, is called each time a clean reads a
// directory's names.
var cleanHook func()

// dirID names a directory for the run: its device and inode, read through
// the open directory, so a name replaced by another directory is another
// one and two names of one directory are one.
type dirID struct{ dev, ino uint64 }

// cleaned is the set of directories a run has cleaned of killed writers'
// leftovers (cleanStaged). Leftovers appear only when a writer is killed:
// one of an earlier run is there before this run's first write and is
// removed by it; one of this run's can't appear without failing the run,
// as a live writer holds its stage's lock. So each directory is read once
// per run, not once per write, and N writes into one directory read N
// names, not N².
type cleaned struct {
	mu   sync.Mutex
	dirs map[dirID]bool
}

// clean cleans the directory open at dirfd (cleanStaged) unless this run
// has cleaned it already. A directory skipped (one others may write, or
// another account's) or not read to its end is not counted as cleaned: a
// later write, after a dir operation gave it a stricter mode or owner,
// cleans it then.
func (c *cleaned) clean(dirfd int) {
	var st unix.Stat_t
	if unix.Fstat(dirfd, &st) != nil {
		return
	}
	id := dirID{dev: uint64(st.Dev), ino: st.Ino}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dirs[id] {
		return
	}
	if cleanStaged(dirfd) {
		if c.dirs == nil {
			c.dirs = make(map[dirID]bool)
		}
		c.dirs[id] = true
	}
}

// cleanStaged removes from the directory open at dirfd what killed writers
// left there, and only that (see the package documentation): only in a
// directory that neither its group nor others may write, and that is the
// writer's own unless the writer is root. There each .zap.lk.XXXXXX that is
// a regular file of the writer's own with one name, and that can be opened
// and locked (flock) without waiting, is a killed writer's, since a live
// one holds the lock; it is removed, and the .zap.lk.XXXXXX.ln link beside
// it first, while the lock is held. What can't be read, opened or locked is
// left as it is; nothing here fails the write.
//
// Root cleans in another account's directory too, where a killed root
// write (zap run as root, writing into a home) leaves a file the account
// can't open: only its own files, which the account can't make (nor, with
// one name, link there), opened without following a link or waiting on a
// fifo. The account may rename names there while root reads them, so root
// may remove a name the account put in place meanwhile: one in the
// account's own directory, which it could remove itself.
//
// It reports whether the directory was read to its end: false when it is
// one where leftovers stay, or couldn't be read.
func cleanStaged(dirfd int) bool {
	var st unix.Stat_t
	euid := os.Geteuid()
	if unix.Fstat(dirfd, &st) != nil || st.Mode&0o022 != 0 || int(st.Uid) != euid && euid != 0 {
		return false
	}
	fd, err := openat(dirfd, ".", dirFlags)
	if err != nil {
		return false
	}
	d := os.NewFile(uintptr(fd), ".")
	defer d.Close()
	if cleanHook != nil {
		cleanHook()
	}
	for {
		names, err := d.Readdirnames(1024)
		for _, name := range names {
			if stagedName(name) {
				removeLeftover(dirfd, name)
			}
		}
		if err != nil {
			return errors.Is(err, io.EOF)
		}
	}
}

// stagedName reports whether name is one stage gives: stagedPrefix and six
// characters from [A-Za-z0-9].
func stagedName(name string) bool {
	rest, ok := strings.CutPrefix(name, stagedPrefix)
	if !ok || len(rest) != 6 {
		return false
	}
	for _, c := range []byte(rest) {
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// removeLeftover removes name from the directory open at dirfd when it is
// a regular file of the writer's own with one name that can be locked
// without waiting, and the link beside it named for it.
func removeLeftover(dirfd int, name string) {
	fd, err := openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	var held, at unix.Stat_t
	if unix.Fstat(fd, &held) != nil || held.Mode&unix.S_IFMT != unix.S_IFREG || held.Nlink != 1 || int(held.Uid) != os.Geteuid() {
		return
	}
	if unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) != nil {
		return
	}
	if unix.Fstatat(dirfd, name, &at, unix.AT_SYMLINK_NOFOLLOW) != nil || at.Dev != held.Dev || at.Ino != held.Ino {
		return
	}
	if unix.Fstatat(dirfd, name+linkSuffix, &at, unix.AT_SYMLINK_NOFOLLOW) == nil && at.Mode&unix.S_IFMT == unix.S_IFLNK {
		unix.Unlinkat(dirfd, name+linkSuffix, 0)
	}
	unix.Unlinkat(dirfd, name, 0)
}
