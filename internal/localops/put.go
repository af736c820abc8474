package localops

import (
	"bytes"
	"context"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/pkg/events"
)

// SnapshotLimit is the largest file a validated write can put back.
const SnapshotLimit = 16 << 20

// setIDSticky are the set-user-id, set-group-id and sticky bits.
const setIDSticky = 0o7000

// attrs is what a put gives the file it installs: its mode, and its owner
// and group (-1: the writer's).
type attrs struct {
	mode     uint32
	uid, gid int
}

func (h *Host) put(ctx context.Context, p *execute.Put) error {
	dirfd, below, name, err := openParent(p.Path, "a file")
	if err != nil {
		return err
	}
	defer unix.Close(dirfd)
	var old *snapshot
	if p.Validate != nil {
		if old, err = readSnapshot(dirfd, p.Path); err != nil {
			return err
		}
	}
	a, err := h.kept(dirfd, p.Path, below, p.Mode != "")
	if err != nil {
		return err
	}
	if p.Owner != "" {
		if a.uid, err = lookupOwner(p.Owner); err != nil {
			return err
		}
	}
	if p.Group != "" {
		if a.gid, err = lookupGroup(p.Group); err != nil {
			return err
		}
	}
	var declared uint32
	if p.Mode != "" {
		if declared, err = parseMode(p.Mode); err != nil {
			return err
		}
		a.mode = declared
	}
	h.cleaned.clean(dirfd)
	if err := install(dirfd, p.Path, p.Reader(), p.Len(), p.SHA512, a); err != nil {
		return err
	}
	if p.Validate == nil {
		return nil
	}
	verr := h.Run(ctx, p.Validate)
	if verr == nil {
		return nil
	}
	if !old.exists {
		if err := unix.Unlinkat(dirfd, name, 0); err != nil && !errors.Is(err, unix.ENOENT) {
			return fmt.Errorf("the check %w, and removing the new file failed: %v", verr, err)
		}
		return fmt.Errorf("the check %w; the new file is removed", verr)
	}
	back := attrs{mode: old.mode&^setIDSticky | old.mode&setIDSticky&declared, uid: old.uid, gid: old.gid}
	if err := install(dirfd, p.Path, bytes.NewReader(old.data), int64(len(old.data)), hexSHA512(old.data), back); err != nil {
		return fmt.Errorf("the check %w, and putting the old file back failed: %v", verr, err)
	}
	return fmt.Errorf("the check %w; the old file is back", verr)
}

// kept returns what the file put at path (in the directory open at dirfd)
// keeps when the put leaves its mode, owner or group unset. below is whether
// the directory is below a shared one; moded is whether the put declares a
// mode.
func (h *Host) kept(dirfd int, path string, below, moded bool) (attrs, error) {
	writers := attrs{mode: 0o666 &^ h.Umask, uid: -1, gid: -1}
	var st unix.Stat_t
	err := unix.Fstatat(dirfd, base(path), &st, unix.AT_SYMLINK_NOFOLLOW)
	switch {
	case errors.Is(err, unix.ENOENT):
		if below {
			return writers, nil
		}
		var dst unix.Stat_t
		if err := unix.Fstat(dirfd, &dst); err != nil {
			return attrs{}, err
		}
		return attrs{mode: writers.mode, uid: int(dst.Uid), gid: int(dst.Gid)}, nil
	case err != nil:
		return attrs{}, fmt.Errorf("read what %s holds: %w", path, err)
	case st.Mode&unix.S_IFMT == unix.S_IFDIR:
		return attrs{}, execute.Errorf(events.Conflict, "%s is a directory", path)
	case st.Mode&unix.S_IFMT != unix.S_IFREG, st.Nlink != 1, below:
		// A symbolic link, a fifo, a socket, a device, a file with a
		// second name, or anything below a shared directory keeps nothing.
		return writers, nil
	}
	if !moded {
		acl, err := hasACL(dirfd, base(path))
		if err != nil {
			return attrs{}, fmt.Errorf("read the access list of %s: %w", path, err)
		}
		if acl {
			return attrs{}, execute.Errorf(events.Permanent, "%s has an access list, so its mode bits aren't its mode and can't be kept: declare mode", path)
		}
	}
	return attrs{mode: st.Mode & 0o777, uid: int(st.Uid), gid: int(st.Gid)}, nil
}

// hasACL reports whether the file name in dirfd has an extended access list.
// The name is read without following a link.
func hasACL(dirfd int, name string) (bool, error) {
	at := fmt.Sprintf("/proc/self/fd/%d/%s", dirfd, name)
	_, err := unix.Lgetxattr(at, "system.posix_acl_access", nil)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, unix.ENODATA), errors.Is(err, unix.EOPNOTSUPP):
		return false, nil
	}
	return false, err
}

// install stages the size bytes data gives beside path (in the directory
// open at dirfd), written as they are read, never held whole; checks them
// against sum, gives them a, and renames the file onto path. On failure
// the staged file is removed.
func install(dirfd int, path string, data io.Reader, size int64, sum string, a attrs) (err error) {
	f, tmp, err := stage(dirfd, parent(path))
	if err != nil {
		return err
	}
	tmpName := base(tmp)
	if stagedHook != nil {
		stagedHook(tmp)
	}
	defer func() {
		// Only the file staged here: an unlink by name could remove what
		// another account put there instead.
		if err != nil && still(dirfd, tmpName, f) {
			unix.Unlinkat(dirfd, tmpName, 0)
		}
		f.Close()
	}()
	if _, err := io.Copy(f, io.LimitReader(data, size)); err != nil {
		return fmt.Errorf("write the staged file %s: %w", tmp, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync the staged file %s: %w", tmp, err)
	}
	h := sha512.New()
	n, err := io.Copy(h, io.NewSectionReader(f, 0, 1<<62))
	if err != nil {
		return fmt.Errorf("read back the staged file %s: %w", tmp, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); n != size || got != sum {
		return execute.Errorf(events.Permanent, "the staged file holds %d bytes with SHA-512 %.16s…, not the %d the plan's %.16s… names", n, got, size, sum)
	}
	if err := setOwner(f, a.uid, a.gid); err != nil {
		return fmt.Errorf("give the staged file %s its owner: %w", tmp, err)
	}
	if err := unix.Fchmod(int(f.Fd()), a.mode); err != nil {
		return fmt.Errorf("give the staged file %s mode %o: %w", tmp, a.mode, err)
	}
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, base(path), &st, unix.AT_SYMLINK_NOFOLLOW); err == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
		return execute.Errorf(events.Conflict, "%s is a directory", path)
	}
	if !still(dirfd, tmpName, f) {
		return execute.Errorf(events.Conflict, "the staged file %s changed under it", tmp)
	}
	if err := unix.Renameat(dirfd, tmpName, dirfd, base(path)); err != nil {
		return fmt.Errorf("rename the staged file onto %s: %w", path, err)
	}
	syncDir(dirfd)
	return nil
}

// still reports whether name in dirfd is still the open file f.
func still(dirfd int, name string, f *os.File) bool {
	var at, held unix.Stat_t
	if unix.Fstatat(dirfd, name, &at, unix.AT_SYMLINK_NOFOLLOW) != nil || unix.Fstat(int(f.Fd()), &held) != nil {
		return false
	}
	return at.Dev == held.Dev && at.Ino == held.Ino
}

func hexSHA512(b []byte) string {
	s := sha512.Sum512(b)
	return hex.EncodeToString(s[:])
}

// snapshot is a file a validated write can put back.
type snapshot struct {
	exists   bool
	data     []byte
	mode     uint32
	uid, gid int
}

// readSnapshot reads the file at path (in the directory open at dirfd)
// through one descriptor: a regular file of SnapshotLimit bytes at most,
// never through a link, never waiting on a fifo; no file is an empty
// snapshot.
func readSnapshot(dirfd int, path string) (*snapshot, error) {
	fd, err := openat(dirfd, base(path), unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC)
	switch {
	case errors.Is(err, unix.ENOENT):
		return &snapshot{}, nil
	case errors.Is(err, unix.ELOOP):
		return nil, execute.Errorf(events.Conflict, "%s is a symbolic link, which a validated write can't put back", path)
	case err != nil:
		return nil, fmt.Errorf("read %s before the write: %w", path, err)
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("read %s before the write: %w", path, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, execute.Errorf(events.Conflict, "%s is not a regular file, which a validated write can't put back", path)
	}
	if st.Size > SnapshotLimit {
		return nil, execute.Errorf(events.Permanent, "%s is over 16 MiB, which a validated write can't put back", path)
	}
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, io.LimitReader(f, SnapshotLimit+1)); err != nil {
		return nil, fmt.Errorf("read %s before the write: %w", path, err)
	}
	if buf.Len() > SnapshotLimit {
		return nil, execute.Errorf(events.Permanent, "%s is over 16 MiB, which a validated write can't put back", path)
	}
	return &snapshot{exists: true, data: buf.Bytes(), mode: st.Mode & 0o7777, uid: int(st.Uid), gid: int(st.Gid)}, nil
}
