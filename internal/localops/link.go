package localops

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/pkg/events"
)

// Link makes path a symbolic link to target (see the package documentation).
func (h *Host) Link(ctx context.Context, l *execute.Link) error {
	if fi, err := os.Lstat(l.Path); err == nil && fi.IsDir() {
		return execute.Errorf(events.Conflict, "%s is a directory", l.Path)
	}
	dir := parent(l.Path)
	if err := mkdirAll(dir); err != nil {
		return err
	}
	var tmp string
	for range 100 {
		tmp = join(dir, ".zap."+randomName(6))
		err := os.Symlink(l.Target, tmp)
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("make a link in %s: %w", dir, errors.Unwrap(err))
		}
		tmp = ""
	}
	if tmp == "" {
		return execute.Errorf(events.Conflict, "make a link in %s: no free name", dir)
	}
	if err := os.Rename(tmp, l.Path); err != nil {
		os.Remove(tmp)
		if fi, serr := os.Lstat(l.Path); serr == nil && fi.IsDir() {
			return execute.Errorf(events.Conflict, "%s is a directory", l.Path)
		}
		return fmt.Errorf("rename the link onto %s: %w", l.Path, errors.Unwrap(err))
	}
	syncDir(dir)
	return nil
}
