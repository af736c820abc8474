package localops

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/user"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/pkg/events"
)

// stagedPrefix begins the name of a file a writer stages and holds locked
// (flock) until it is renamed into place; six characters from [A-Za-z0-9]
// follow it. A file so named that can be locked without waiting is a killed
// writer's (cleanStaged).
const stagedPrefix = ".zap.lk."

// lockTries bounds how often stage tries the lock on the file it made, a
// lockWait apart: a cleaner holds it only a moment, and an account that a
// default access list let open the file before its mode was set could hold
// it for ever.
const (
	lockTries = 100
	lockWait  = 50 * time.Millisecond
)

// stage makes a new file beside a path, in the directory open at dirfd (dir
// is its path, for messages), named .zap.lk.XXXXXX, mode 0600 whatever the
// umask or a default access list gives, and returns it open and locked
// (flock, held until it is closed). Before a byte is written it must be a
// regular file of the writer's, empty, with one name, and still the file at
// the staged name, once locked too: a name gone by then was taken, not yet
// locked, by a cleaner for a killed writer's, and another file is staged.
func stage(dirfd int, dir string) (*os.File, string, error) {
	gone := 0
	for range 100 {
		name := stagedPrefix + randomName(6)
		fd, err := unix.Openat(dirfd, name, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if errors.Is(err, unix.EEXIST) || errors.Is(err, unix.EINTR) {
			continue
		}
		path := join(dir, name)
		if err != nil {
			return nil, "", fmt.Errorf("stage a file in %s: %w", dir, err)
		}
		f := os.NewFile(uintptr(fd), path)
		var st unix.Stat_t
		err = unix.Fchmod(fd, 0o600)
		if err == nil {
			err = unix.Fstat(fd, &st)
		}
		if err != nil {
			f.Close()
			return nil, "", fmt.Errorf("stage a file in %s: %w", dir, err)
		}
		if st.Mode&unix.S_IFMT != unix.S_IFREG || int(st.Uid) != os.Geteuid() || st.Size != 0 || st.Nlink != 1 || !still(dirfd, name, f) {
			// Not removed: the name may no longer be the file made here.
			f.Close()
			return nil, "", execute.Errorf(events.Conflict, "the staged file %s changed under it", path)
		}
		if !lock(fd) {
			f.Close()
			return nil, "", execute.Errorf(events.Conflict, "the staged file %s is locked by another process", path)
		}
		if !still(dirfd, name, f) {
			f.Close()
			var at unix.Stat_t
			if err := unix.Fstatat(dirfd, name, &at, unix.AT_SYMLINK_NOFOLLOW); errors.Is(err, unix.ENOENT) && gone < 3 {
				gone++
				continue
			}
			return nil, "", execute.Errorf(events.Conflict, "the staged file %s changed under it", path)
		}
		return f, path, nil
	}
	return nil, "", execute.Errorf(events.Conflict, "stage a file in %s: no free name", dir)
}

// lock takes an exclusive flock on fd, waiting out a cleaner that holds it
// a moment, never blocked: lockTries tries, lockWait apart.
func lock(fd int) bool {
	for i := range lockTries {
		err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return true
		}
		if !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR) {
			return false
		}
		if i < lockTries-1 {
			time.Sleep(lockWait)
		}
	}
	return false
}

// denied reports whether err is the system refusing the writer.
func denied(err error) bool {
	return errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM)
}

// randomName returns n characters from [A-Za-z0-9], as mktemp's X's are.
func randomName(n int) string {
	const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, n)
	rand.Read(b)
	for i := range b {
		b[i] = chars[int(b[i])%len(chars)]
	}
	return string(b)
}

// lookupOwner returns the uid of an account name.
func lookupOwner(name string) (int, error) {
	u, err := user.Lookup(name)
	if err != nil {
		return 0, execute.Errorf(events.NotFound, "no account %q on this machine", name)
	}
	return strconv.Atoi(u.Uid)
}

// lookupGroup returns the gid of a group name.
func lookupGroup(name string) (int, error) {
	g, err := user.LookupGroup(name)
	if err != nil {
		return 0, execute.Errorf(events.NotFound, "no group %q on this machine", name)
	}
	return strconv.Atoi(g.Gid)
}

// parseMode reads a declared octal mode.
func parseMode(s string) (uint32, error) {
	m, err := strconv.ParseUint(s, 8, 32)
	if err != nil || m > 0o7777 {
		return 0, execute.Errorf(events.Permanent, "%q is not an octal mode", s)
	}
	return uint32(m), nil
}

// setOwner gives the open file f the owner uid and group gid (-1: leave it),
// calling fchown only when one differs from what f has.
func setOwner(f *os.File, uid, gid int) error {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		return err
	}
	if uid == int(st.Uid) {
		uid = -1
	}
	if gid == int(st.Gid) {
		gid = -1
	}
	if uid == -1 && gid == -1 {
		return nil
	}
	return syscall.Fchown(int(f.Fd()), uid, gid)
}

// parent returns the directory a path's last name is in, without cleaning
// the path (a .. stays as the kernel reads it).
func parent(path string) string {
	i := strings.LastIndex(path, "/")
	if i <= 0 {
		return "/"
	}
	return path[:i]
}

// join puts name in dir without cleaning dir.
func join(dir, name string) string {
	if strings.HasSuffix(dir, "/") {
		return dir + name
	}
	return dir + "/" + name
}
