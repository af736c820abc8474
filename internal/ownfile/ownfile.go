// Package ownfile opens and reads a file Zap keeps for itself (the lock, the
// last-run report, the fingerprint key, an eval cache entry) the one way
// each of them is read: never through a symbolic link (O_NOFOLLOW), never
// waiting on a fifo (O_NONBLOCK), only a regular file, optionally only one
// the user owns that other accounts can't write (or, private, use), and
// never more bytes than the caller's bound.
//
// Every refusal wraps the caller's own sentinel (Rules.Refused), so each
// caller keeps its own error kind and wording: "<path>: <refused>: a
// symbolic link", "<path>: <refused>: not a regular file", and Trust's.
package ownfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/zap-go/zap/pkg/canon"
)

// Rules say which file Open accepts: a regular file reached through no
// link, and with Own set, one of UID's that other accounts can't write
// (Private: can't use at all).
type Rules struct {
	// Refused is the error every refusal wraps.
	Refused error
	// Own asks for Trust(path, fi, UID, Private, Refused) to hold.
	Own     bool
	UID     int
	Private bool
	// NotRegular, when not nil, words the refusal of what isn't a regular
	// file; nil words it "<path>: <Refused>: not a regular file".
	NotRegular func(path string, fi fs.FileInfo) error
}

// Open opens path for reading under r. The caller closes the file. An
// error from the open itself (nothing there, no permission) is returned as
// os.OpenFile made it.
func Open(path string, r Rules) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, nil, fmt.Errorf("%s: %w: a symbolic link", path, r.Refused)
		}
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		if r.NotRegular != nil {
			err = r.NotRegular(path, fi)
		} else {
			err = fmt.Errorf("%s: %w: not a regular file", path, r.Refused)
		}
	}
	if err == nil && r.Own {
		err = Trust(path, fi, r.UID, r.Private, r.Refused)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// Read reads the file at path under r, at most limit bytes: a larger one is
// refused with canon's *LimitError (BoundSize), as "<path>: <the limit>".
func Read(path string, limit int64, r Rules) ([]byte, error) {
	f, _, err := Open(path, r)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := canon.ReadAll(f, limit)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return data, nil
}

// Trust checks that fi, at path, belongs to uid and that other accounts
// can't write it (private: can't use it at all). A refusal wraps refused.
func Trust(path string, fi fs.FileInfo, uid int, private bool, refused error) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%s: %w: no owner to check", path, refused)
	}
	if int(st.Uid) != uid {
		return fmt.Errorf("%s: %w: it belongs to uid %d, and Zap runs as uid %d", path, refused, st.Uid, uid)
	}
	mask, what := fs.FileMode(0o022), "write"
	if private {
		mask, what = 0o077, "use"
	}
	if fi.Mode().Perm()&mask != 0 {
		return fmt.Errorf("%s: %w: other accounts can %s it (mode %o)", path, refused, what, fi.Mode().Perm())
	}
	return nil
}
