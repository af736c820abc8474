package localops

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/pkg/events"
)

func (h *Host) link(l *execute.Link) error {
	dir := parent(l.Path)
	dirfd, _, name, err := openParent(l.Path, "a link")
	if err != nil {
		return err
	}
	defer unix.Close(dirfd)
	isDir := func() bool {
		var st unix.Stat_t
		return unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR
	}
	if isDir() {
		return execute.Errorf(events.Conflict, "%s is a directory", l.Path)
	}
	h.cleaned.clean(dirfd)
	// The link is made beside a staged file, locked, named for it: what a
	// write killed in between leaves, a later one removes.
	guard, staged, err := stage(dirfd, dir)
	if err != nil {
		return err
	}
	guardName := base(staged)
	defer func() {
		if still(dirfd, guardName, guard) {
			unix.Unlinkat(dirfd, guardName, 0)
		}
		guard.Close()
	}()
	tmp := guardName + linkSuffix
	if err := unix.Symlinkat(l.Target, dirfd, tmp); err != nil {
		if errors.Is(err, unix.EEXIST) {
			return execute.Errorf(events.Conflict, "make a link in %s: %s is taken", dir, tmp)
		}
		return fmt.Errorf("make a link in %s: %w", dir, err)
	}
	if stagedHook != nil {
		stagedHook(join(dir, tmp))
	}
	if err := unix.Renameat(dirfd, tmp, dirfd, name); err != nil {
		unix.Unlinkat(dirfd, tmp, 0)
		if isDir() {
			return execute.Errorf(events.Conflict, "%s is a directory", l.Path)
		}
		return fmt.Errorf("rename the link onto %s: %w", l.Path, err)
	}
	syncDir(dirfd)
	return nil
}
