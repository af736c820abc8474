// Package pin holds the evaluator to the toolchain pin: it opens the zap-eval
// binary once, reads its blake3 through that descriptor, and runs exactly
// what it read.
//
// Open refuses a path that isn't absolute, a symbolic link at the binary's
// own name, anything but a regular executable file, a set-ID file and a
// script (#!). It copies the file into a sealed memfd while hashing it
// (io.MultiWriter), so the bytes that were hashed are the bytes that run: a
// binary rewritten or replaced at its path afterwards isn't what runs. A file
// whose size or times moved while it was read is refused (ErrChanged), a
// retry clears it.
//
// # The pin cache
//
// Hashing a 20 MB binary on every command is cheap but not free, so a Cache
// maps a file's device, inode, size, and modification and change times to
// its blake3. An entry is written only for a file whose times are at least
// Settle old: a write moves the change time, but only to the filesystem's
// timestamp granularity, so a file written within the same tick as its entry
// could keep matching it. A clock set back across that margin, or a network
// filesystem whose server's clock lags, defeats it.
//
// On a cache hit the file is not read at all: the descriptor Open opened
// (and fstat checked against the entry) is what runs, through
// /proc/self/fd/N, so a binary replaced at its path still isn't what runs.
// The trade-off is the one security.md states: a write to the file itself
// between the check and the exec, by anyone who can write it, is caught only
// on a best-effort basis (the descriptor's metadata is compared with the
// entry again just before the command is built). Without a hit, the memfd
// closes that window entirely.
package pin

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/zeebo/blake3"
	"golang.org/x/sys/unix"
)

// Settle is how old a file's times must be before the cache records it.
const Settle = 2 * time.Second

// ErrRefused marks a binary Zap won't run: an input to fix (exit 2).
var ErrRefused = errors.New("refused")

// ErrChanged marks a binary that was written while it was read, or before
// it ran: a problem in the world (exit 1) a retry clears.
var ErrChanged = errors.New("written while Zap read it")

// Stat is what identifies a file's bytes in the cache.
type Stat struct {
	Dev     uint64 `json:"dev"`
	Ino     uint64 `json:"ino"`
	Size    int64  `json:"size"`
	MtimeNs int64  `json:"mtime_ns"`
	CtimeNs int64  `json:"ctime_ns"`
}

func statOf(st *syscall.Stat_t) Stat {
	return Stat{
		Dev: uint64(st.Dev), Ino: st.Ino, Size: st.Size,
		MtimeNs: st.Mtim.Nano(), CtimeNs: st.Ctim.Nano(),
	}
}

// settled reports whether both of the file's times are at least Settle
// before now.
func (s Stat) settled(now time.Time) bool {
	limit := now.Add(-Settle).UnixNano()
	return s.MtimeNs <= limit && s.CtimeNs <= limit
}

// Cache is the pin cache (internal/state implements it on disk).
type Cache interface {
	// Lookup returns the blake3 recorded for a file with exactly st.
	Lookup(st Stat) (sum string, ok bool, err error)
	// Store records sum for a file with st.
	Store(st Stat, sum string) error
}

// Binary is an evaluator opened and hashed, ready to run.
type Binary struct {
	// Path is the binary's path as given.
	Path string
	// Sum is its blake3, 64 lowercase hex.
	Sum string
	// Cached is true when Sum came from the cache.
	Cached bool
	// Sealed is true when what runs is the sealed memfd copy.
	Sealed bool

	run  *os.File // what runs: the memfd, or on a hit the file itself
	file *os.File // the file as opened
	st   Stat
}

// Options tune Open.
type Options struct {
	// Cache, when not nil, is consulted and updated.
	Cache Cache
	// Now is the clock the settle margin is read against (time.Now when nil).
	Now func() time.Time
}

// Open opens the binary at path, checks it, and hashes it (or finds its
// hash in the cache). The caller closes the Binary.
func Open(path string, o Options) (_ *Binary, err error) {
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("%s: %w: not an absolute path", path, ErrRefused)
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	switch {
	case errors.Is(err, syscall.ELOOP):
		return nil, fmt.Errorf("%s: %w: a symbolic link; name the binary itself", path, ErrRefused)
	case errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("%s: %w: no such file", path, ErrRefused)
	case err != nil:
		return nil, err
	}
	b := &Binary{Path: path, file: f}
	defer func() {
		if err != nil {
			b.Close()
		}
	}()
	st, err := fstat(f)
	if err != nil {
		return nil, err
	}
	if err := check(path, st); err != nil {
		return nil, err
	}
	b.st = statOf(st)
	if err := checkScript(path, f); err != nil {
		return nil, err
	}

	if o.Cache != nil {
		sum, ok, err := o.Cache.Lookup(b.st)
		if err != nil {
			return nil, err
		}
		if ok {
			b.Sum, b.Cached, b.run = sum, true, f
			return b, nil
		}
	}

	mfd, err := memfd(filepath.Base(path))
	if err != nil {
		return nil, fmt.Errorf("memfd: %w", err)
	}
	b.run, b.Sealed = mfd, true
	h := blake3.New()
	n, err := io.CopyBuffer(io.MultiWriter(mfd, h), io.NewSectionReader(f, 0, b.st.Size+1), make([]byte, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if _, err := unix.FcntlInt(mfd.Fd(), unix.F_ADD_SEALS,
		unix.F_SEAL_WRITE|unix.F_SEAL_GROW|unix.F_SEAL_SHRINK|unix.F_SEAL_SEAL); err != nil {
		return nil, fmt.Errorf("seal the memfd: %w", err)
	}
	after, err := fstat(f)
	if err != nil {
		return nil, err
	}
	if n != b.st.Size || statOf(after) != b.st {
		return nil, fmt.Errorf("%s: %w (it changed while it was hashed)", path, ErrChanged)
	}
	b.Sum = hex.EncodeToString(h.Sum(nil))
	if o.Cache != nil && b.st.settled(now()) {
		if err := o.Cache.Store(b.st, b.Sum); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func fstat(f *os.File) (*syscall.Stat_t, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name(), err)
	}
	return &st, nil
}

// check refuses anything but a regular, executable file with no set-ID bit.
func check(path string, st *syscall.Stat_t) error {
	switch {
	case st.Mode&syscall.S_IFMT != syscall.S_IFREG:
		return fmt.Errorf("%s: %w: not a regular file", path, ErrRefused)
	case st.Mode&(syscall.S_ISUID|syscall.S_ISGID) != 0:
		return fmt.Errorf("%s: %w: a set-ID file (mode %o)", path, ErrRefused, st.Mode&0o7777)
	case st.Mode&0o111 == 0:
		return fmt.Errorf("%s: %w: not executable (mode %o)", path, ErrRefused, st.Mode&0o7777)
	}
	return nil
}

// checkScript refuses a file that starts with #!: a script runs whatever
// interpreter it names, which no pin covers.
func checkScript(path string, f *os.File) error {
	var head [2]byte
	n, err := f.ReadAt(head[:], 0)
	if err != nil && err != io.EOF {
		return fmt.Errorf("%s: %w", path, err)
	}
	if n == 2 && string(head[:]) == "#!" {
		return fmt.Errorf("%s: %w: a script (#!); name the zap-eval binary itself, not a wrapper", path, ErrRefused)
	}
	return nil
}

// memfd makes an executable memfd that can be sealed. MFD_EXEC asks for
// the execute bits where vm.memfd_noexec would otherwise withhold them; a
// kernel older than 6.3 doesn't know the flag and makes memfds executable
// anyway.
func memfd(name string) (*os.File, error) {
	fd, err := unix.MemfdCreate(name, unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING|unix.MFD_EXEC)
	if errors.Is(err, unix.EINVAL) {
		fd, err = unix.MemfdCreate(name, unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	}
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), "memfd:"+name), nil
}

// Command is the binary run with args: exec.Cmd of /proc/self/fd/N, the
// descriptor that was checked, with argv[0] the binary's own name. On a
// cache hit the file's metadata is compared with the entry once more
// (ErrChanged when it moved).
func (b *Binary) Command(ctx context.Context, args ...string) (*exec.Cmd, error) {
	if b.run == nil {
		return nil, errors.New("pin: the binary is closed")
	}
	if !b.Sealed {
		st, err := fstat(b.file)
		if err != nil {
			return nil, err
		}
		if statOf(st) != b.st {
			return nil, fmt.Errorf("%s: %w (it changed before it ran)", b.Path, ErrChanged)
		}
	}
	cmd := exec.CommandContext(ctx, fmt.Sprintf("/proc/self/fd/%d", b.run.Fd()), args...)
	cmd.Args[0] = filepath.Base(b.Path)
	return cmd, nil
}

// Close releases the descriptors.
func (b *Binary) Close() error {
	var err error
	if b.run != nil && b.run != b.file {
		err = b.run.Close()
	}
	if b.file != nil {
		if e := b.file.Close(); err == nil {
			err = e
		}
	}
	b.run, b.file = nil, nil
	return err
}
