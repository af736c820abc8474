package localops

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"strconv"
	"strings"
	"syscall"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/pkg/events"
)

// mkdirAll makes each missing directory of the absolute path, one at a time from the top,
// with mode 0777 less the umask, as mkdir -p does. A link in a directory on
// the way is followed; anything else in the way is a conflict.
func mkdirAll(path string) error {
	at := ""
	for _, part := range strings.Split(path, "/") {
		if part == "" {
			continue
		}
		// Joined as written, so the kernel reads a .. after a link as it
		// reads the path itself.
		at += "/" + part
		fi, err := os.Stat(at)
		if err == nil {
			if !fi.IsDir() {
				return execute.Errorf(events.Conflict, "%s is in the way: it is not a directory", at)
			}
			continue
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if err := os.Mkdir(at, 0o777); err != nil {
			if errors.Is(err, fs.ErrExist) {
				if fi, serr := os.Stat(at); serr == nil && fi.IsDir() {
					continue
				}
				return execute.Errorf(events.Conflict, "%s is in the way: it is not a directory", at)
			}
			return err
		}
	}
	return nil
}

// stage makes a new file beside a path in dir, named .zap.XXXXXX, mode 0600,
// and returns it open.
func stage(dir string) (*os.File, string, error) {
	for range 100 {
		name := join(dir, ".zap."+randomName(6))
		fd, err := syscall.Open(name, syscall.O_RDWR|syscall.O_CREAT|syscall.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
		if errors.Is(err, syscall.EEXIST) {
			continue
		}
		if err != nil {
			return nil, "", fmt.Errorf("stage a file in %s: %w", dir, err)
		}
		f := os.NewFile(uintptr(fd), name)
		// A default access list on the directory may have widened the mode.
		if err := f.Chmod(0o600); err != nil {
			f.Close()
			os.Remove(name)
			return nil, "", fmt.Errorf("stage a file in %s: %w", dir, err)
		}
		return f, name, nil
	}
	return nil, "", execute.Errorf(events.Conflict, "stage a file in %s: no free name", dir)
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

// syncDir makes a rename in dir durable, as far as the filesystem lets it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
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
