// Package atomicfile writes a file so that a reader sees the old bytes or
// the new ones and never a part: a temporary file in the same directory,
// given its mode, written, synced, renamed over the path, and the directory
// synced.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write writes data to path atomically with mode perm. beforeRename, when
// not nil, runs after the bytes are on disk and just before the rename; an
// error from it leaves path as it was.
func Write(path string, data []byte, perm os.FileMode, beforeRename func() error) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err := f.Chmod(perm); err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if beforeRename != nil {
		if err := beforeRename(); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	ok = true
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
