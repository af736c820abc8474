package localops

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/pkg/events"
)

func (h *Host) dir(d *execute.Dir) error {
	var mode uint32
	uid, gid := -1, -1
	var err error
	if d.Mode != "" {
		if mode, err = parseMode(d.Mode); err != nil {
			return err
		}
	}
	if d.Owner != "" {
		if uid, err = lookupOwner(d.Owner); err != nil {
			return err
		}
	}
	if d.Group != "" {
		if gid, err = lookupGroup(d.Group); err != nil {
			return err
		}
	}
	dirfd, below, name, err := openParent(d.Path, "a directory Zap can make")
	if err != nil {
		return err
	}
	defer unix.Close(dirfd)
	// Acting on the directory needs it open for reading; with nothing to
	// set, searching it is enough.
	flags := pathFlags | unix.O_NOFOLLOW
	if d.Mode != "" || uid != -1 || gid != -1 {
		flags = dirFlags | unix.O_NOFOLLOW
	}
	fd, err := openat(dirfd, name, flags)
	if errors.Is(err, unix.ENOENT) {
		if !below {
			if below, err = underShared(dirfd); err != nil {
				return fmt.Errorf("walk up from %s: %w", parent(d.Path), err)
			}
		}
		fd, err = makeDir(dirfd, name, d.Path, below)
		if err == nil {
			// Opened again to act on it, never through a link.
			unix.Close(fd)
			fd, err = openat(dirfd, name, flags)
		}
	}
	switch {
	case errors.Is(err, unix.ELOOP):
		return execute.Errorf(events.Conflict, "%s is a symbolic link", d.Path)
	case errors.Is(err, unix.ENOTDIR):
		var st unix.Stat_t
		if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			return execute.Errorf(events.Conflict, "%s is a symbolic link", d.Path)
		}
		return execute.Errorf(events.Conflict, "%s is in the way: it is not a directory", d.Path)
	case err != nil:
		return fmt.Errorf("open the directory %s: %w", d.Path, err)
	}
	defer unix.Close(fd)
	if uid != -1 || gid != -1 {
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			return err
		}
		if uid == int(st.Uid) {
			uid = -1
		}
		if gid == int(st.Gid) {
			gid = -1
		}
		if uid != -1 || gid != -1 {
			if err := unix.Fchown(fd, uid, gid); err != nil {
				return fmt.Errorf("give %s its owner: %w", d.Path, err)
			}
		}
	}
	if d.Mode != "" {
		if err := unix.Fchmod(fd, mode); err != nil {
			return fmt.Errorf("give %s mode %s: %w", d.Path, d.Mode, err)
		}
	}
	return nil
}
