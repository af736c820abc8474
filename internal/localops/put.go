package localops

import (
	"bytes"
	"context"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

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

// Put installs a file whole (see the package documentation).
func (h *Host) Put(ctx context.Context, p *execute.Put) error {
	dir := parent(p.Path)
	if err := mkdirAll(dir); err != nil {
		return err
	}
	var old *snapshot
	if p.Validate != nil {
		var err error
		if old, err = readSnapshot(p.Path); err != nil {
			return err
		}
	}
	a, err := h.kept(p.Path, dir)
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
	if err := install(p.Path, p.Content, p.SHA512, a); err != nil {
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
		if err := os.Remove(p.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("the check %w, and removing the new file failed: %v", verr, err)
		}
		return fmt.Errorf("the check %w; the new file is removed", verr)
	}
	back := attrs{mode: old.mode&^setIDSticky | old.mode&setIDSticky&declared, uid: old.uid, gid: old.gid}
	if err := install(p.Path, old.data, hexSHA512(old.data), back); err != nil {
		return fmt.Errorf("the check %w, and putting the old file back failed: %v", verr, err)
	}
	return fmt.Errorf("the check %w; the old file is back", verr)
}

// kept returns what a new file at path keeps when the put leaves its mode,
// owner or group unset.
func (h *Host) kept(path, dir string) (attrs, error) {
	writers := attrs{mode: 0o666 &^ h.Umask, uid: -1, gid: -1}
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		var st syscall.Stat_t
		if err := syscall.Stat(dir, &st); err != nil {
			return attrs{}, err
		}
		return attrs{mode: writers.mode, uid: int(st.Uid), gid: int(st.Gid)}, nil
	case err != nil:
		return attrs{}, err
	case fi.IsDir():
		return attrs{}, execute.Errorf(events.Conflict, "%s is a directory", path)
	case fi.Mode().IsRegular():
		st := fi.Sys().(*syscall.Stat_t)
		if st.Nlink != 1 {
			return writers, nil
		}
		return attrs{mode: st.Mode & 0o777, uid: int(st.Uid), gid: int(st.Gid)}, nil
	}
	// A symbolic link, a fifo, a socket or a device keeps nothing.
	return writers, nil
}

// install stages data beside path, checks it against sum, gives it a, and
// renames it onto path. On failure the staged file is removed.
func install(path string, data []byte, sum string, a attrs) (err error) {
	f, tmp, err := stage(parent(path))
	if err != nil {
		return err
	}
	defer func() {
		f.Close()
		if err != nil {
			os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
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
	if got := hex.EncodeToString(h.Sum(nil)); n != int64(len(data)) || got != sum {
		return execute.Errorf(events.Permanent, "the staged file holds %d bytes with SHA-512 %.16s…, not the %d the plan's %.16s… names", n, got, len(data), sum)
	}
	if err := setOwner(f, a.uid, a.gid); err != nil {
		return fmt.Errorf("give the staged file %s its owner: %w", tmp, err)
	}
	if err := syscall.Fchmod(int(f.Fd()), a.mode); err != nil {
		return fmt.Errorf("give the staged file %s mode %o: %w", tmp, a.mode, err)
	}
	if fi, err := os.Lstat(path); err == nil && fi.IsDir() {
		return execute.Errorf(events.Conflict, "%s is a directory", path)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("rename the staged file onto %s: %w", path, errors.Unwrap(err))
	}
	syncDir(parent(path))
	return nil
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

// readSnapshot reads the file at path through one descriptor: a regular
// file of SnapshotLimit bytes at most, never through a link; no file is an
// empty snapshot.
func readSnapshot(path string) (*snapshot, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	switch {
	case errors.Is(err, syscall.ENOENT):
		return &snapshot{}, nil
	case errors.Is(err, syscall.ELOOP):
		return nil, execute.Errorf(events.Conflict, "%s is a symbolic link, which a validated write can't put back", path)
	case err != nil:
		return nil, fmt.Errorf("read %s before the write: %w", path, err)
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("read %s before the write: %w", path, err)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
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
