package localops

import (
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// stagedHook, when a test sets it, is called with the staged name once a
// put's file is staged and locked, and once a link is made beside its
// staged file: a test stops a writer there, to kill it or to race it.
var stagedHook func(name string)

// linkSuffix follows a staged file's name to name the link a link operation
// makes beside it before renaming it into place.
const linkSuffix = ".ln"

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
func cleanStaged(dirfd int) {
	var st unix.Stat_t
	euid := os.Geteuid()
	if unix.Fstat(dirfd, &st) != nil || st.Mode&0o022 != 0 || int(st.Uid) != euid && euid != 0 {
		return
	}
	fd, err := openat(dirfd, ".", dirFlags)
	if err != nil {
		return
	}
	d := os.NewFile(uintptr(fd), ".")
	defer d.Close()
	for {
		names, err := d.Readdirnames(1024)
		for _, name := range names {
			if stagedName(name) {
				removeLeftover(dirfd, name)
			}
		}
		if err != nil {
			return // io.EOF: all read
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
