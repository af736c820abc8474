package localhost

import (
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/zap-go/zap/internal/batch"
	"github.com/zap-go/zap/internal/detect"
)

// fromError is the answer for a path read that failed with err: missing for
// what stat and readlink report with exit status 1 as nothing there (no
// such file, a component that isn't a directory, a loop of links), denied
// for a refusal, failed otherwise.
func fromError(err error) detect.Answer {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return failed(err.Error())
	}
	switch errno {
	case syscall.ENOENT, syscall.ENOTDIR, syscall.ELOOP:
		return detect.Answer{Status: detect.StatusMissing}
	case syscall.EACCES, syscall.EPERM:
		return detect.Answer{Status: detect.StatusDenied}
	}
	return failed(errno.Error())
}

func lstat(path string) (syscall.Stat_t, error) {
	var st syscall.Stat_t
	for {
		err := syscall.Lstat(path, &st)
		if err != syscall.EINTR {
			return st, err
		}
	}
}

// readType is what path resolves to, following links.
func readType(path string) detect.Answer {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return fromError(err)
	}
	return detect.Answer{Status: detect.StatusOK, Type: batch.FileType(st.Mode)}
}

// readStat is path's own type, mode, owner and group.
func readStat(path string, n *names) detect.Answer {
	st, err := lstat(path)
	if err != nil {
		return fromError(err)
	}
	return detect.Answer{
		Status: detect.StatusOK,
		Type:   batch.FileType(st.Mode),
		Mode:   st.Mode & 0o7777,
		Owner:  n.user(st.Uid),
		Group:  n.group(st.Gid),
	}
}

// readLink is the target of the symbolic link at path; anything else there
// is missing, as readlink(1) exiting 1 says.
func readLink(path string) detect.Answer {
	target, err := os.Readlink(path)
	if err != nil {
		if errors.Is(err, syscall.EINVAL) {
			return detect.Answer{Status: detect.StatusMissing}
		}
		return fromError(err)
	}
	return detect.Answer{Status: detect.StatusOK, Target: target}
}

// readDigest is the SHA-512 of the regular file of its own at path. What
// isn't a regular file is reported, not opened; the open follows no link
// and waits on no fifo; what was opened is read only when it is a regular
// file with one link and still the file at the name.
func readDigest(path string) detect.Answer {
	f, a := openOwn(path)
	if f == nil {
		return a
	}
	defer f.Close()
	h := sha512.New()
	if _, err := io.Copy(h, f); err != nil {
		return fromError(err)
	}
	return detect.Answer{Status: detect.StatusOK, SHA512: hex.EncodeToString(h.Sum(nil))}
}

// readContent reads at most limit bytes of a regular file of its own: the
// answer's Content, with Over set when the file holds more.
func readContent(path string, limit int) detect.Answer {
	if limit <= 0 || limit > detect.ContentLimit {
		return failed(fmt.Sprintf("a content read's limit is 1 to %d bytes", detect.ContentLimit))
	}
	f, a := openOwn(path)
	if f == nil {
		return a
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return fromError(err)
	}
	if len(b) > limit {
		return detect.Answer{Status: detect.StatusOK, Content: string(b[:limit]), Over: true}
	}
	return detect.Answer{Status: detect.StatusOK, Content: string(b)}
}

// readText answers a text read (a diff's): a regular file of its own, as a
// content read opens it, read whole when it is at most limit bytes and
// budget has them left (budget is what the lane's text reads may still
// read, and shrinks by what this one read); a larger file is Over with its
// Size, unread.
func readText(path string, limit int, budget *int64) detect.Answer {
	if limit <= 0 || limit > detect.ContentLimit {
		return failed(fmt.Sprintf("a text read's limit is 1 to %d bytes", detect.ContentLimit))
	}
	f, a := openOwn(path)
	if f == nil {
		return a
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fromError(err)
	}
	if st.Size() > int64(limit) {
		return detect.Answer{Status: detect.StatusOK, Over: true, Size: st.Size()}
	}
	if st.Size() > *budget {
		return failed("the pass has read as much text for diffs as it reads")
	}
	b, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return fromError(err)
	}
	*budget -= int64(len(b))
	if len(b) > limit {
		return detect.Answer{Status: detect.StatusOK, Over: true, Size: int64(len(b))}
	}
	return detect.Answer{Status: detect.StatusOK, Content: string(b)}
}

// openOwn opens path for a content read: only a regular file of its own
// (lstat first, so a fifo or device is never opened; O_NOFOLLOW, so a link
// swapped in isn't followed), with one link, still the file at the name.
// When it returns no file, the answer says why.
func openOwn(path string) (*os.File, detect.Answer) {
	before, err := lstat(path)
	if err != nil {
		return nil, fromError(err)
	}
	if t := batch.FileType(before.Mode); t != detect.TypeRegular {
		return nil, detect.Answer{Status: detect.StatusNotRegular, Type: t}
	}
	fd, err := open(path)
	if err != nil {
		if err == syscall.ELOOP {
			// A link swapped in since the lstat.
			return nil, detect.Answer{Status: detect.StatusNotRegular, Type: detect.TypeSymlink}
		}
		return nil, fromError(err)
	}
	f := os.NewFile(uintptr(fd), path)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		f.Close()
		return nil, fromError(err)
	}
	if t := batch.FileType(st.Mode); t != detect.TypeRegular {
		f.Close()
		return nil, detect.Answer{Status: detect.StatusNotRegular, Type: t}
	}
	if st.Nlink > 1 {
		f.Close()
		return nil, detect.Answer{Status: detect.StatusHardLinked, Links: uint64(st.Nlink)}
	}
	now, err := lstat(path)
	if err != nil || now.Dev != st.Dev || now.Ino != st.Ino {
		f.Close()
		return nil, failed("it changed while it was read")
	}
	return f, detect.Answer{}
}

func open(path string) (int, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}
