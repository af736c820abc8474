package localops

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/pkg/events"
)

// Dir makes a directory and sets its declared mode, owner and group (see the
// package documentation).
func (h *Host) Dir(ctx context.Context, d *execute.Dir) error {
	if fi, err := os.Lstat(d.Path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return execute.Errorf(events.Conflict, "%s is a symbolic link", d.Path)
	}
	if err := mkdirAll(d.Path); err != nil {
		return err
	}
	if d.Mode == "" && d.Owner == "" && d.Group == "" {
		return nil
	}
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
	fd, err := syscall.Open(d.Path, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	switch {
	case errors.Is(err, syscall.ELOOP):
		return execute.Errorf(events.Conflict, "%s is a symbolic link", d.Path)
	case errors.Is(err, syscall.ENOTDIR):
		return execute.Errorf(events.Conflict, "%s is in the way: it is not a directory", d.Path)
	case err != nil:
		return fmt.Errorf("open the directory %s: %w", d.Path, err)
	}
	f := os.NewFile(uintptr(fd), d.Path)
	defer f.Close()
	if err := setOwner(f, uid, gid); err != nil {
		return fmt.Errorf("give %s its owner: %w", d.Path, err)
	}
	if d.Mode != "" {
		if err := syscall.Fchmod(fd, mode); err != nil {
			return fmt.Errorf("give %s mode %s: %w", d.Path, d.Mode, err)
		}
	}
	return nil
}
