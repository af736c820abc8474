package zapeval

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// cgroupRoot is where the cgroup v2 hierarchy is mounted.
const cgroupRoot = "/sys/fs/cgroup"

// cgroupSlack is what the memory cgroup allows above MaxMemory: the
// process's RLIMIT_AS is the one meant to stop it, with the runtime's own
// report; the cgroup holds what RLIMIT_AS doesn't count (the kernel's
// memory for the process, the page cache it fills).
const cgroupSlack = 64 << 20

// cgroupPrefix starts the name of an evaluation's cgroup; the parent's
// PID follows.
const cgroupPrefix = "zap-eval-"

// memCgroup is a cgroup v2 made for one evaluating process, whose
// memory.max bounds all it holds, kernel memory included, and which it
// can't swap from. A nil *memCgroup is none: the process's own limits
// (limits.go) hold alone.
type memCgroup struct {
	dir string
	fd  *os.File
}

// newMemoryCgroup makes a memory cgroup of max bytes where one can be
// made: the cgroup v2 hierarchy is mounted, the cgroup zap-eval is in
// has a parent that hands the memory controller down (its
// cgroup.subtree_control names memory; in the root cgroup, the root
// itself) and zap-eval may make a cgroup there: root, or a user in a
// subtree delegated to them (a systemd user session's app.slice). The
// evaluating process starts in it (CLONE_INTO_CGROUP); it is removed once
// the process has ended. Under cgroup v1, or in a cgroup zap-eval can't
// make a sibling of, there is none.
func newMemoryCgroup(max uint64) *memCgroup {
	var st unix.Statfs_t
	if unix.Statfs(cgroupRoot, &st) != nil || st.Type != unix.CGROUP2_SUPER_MAGIC {
		return nil
	}
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil
	}
	base, ok := cgroupBase(cgroupRoot, self)
	if !ok {
		return nil
	}
	removeStale(base)
	dir := filepath.Join(base, cgroupPrefix+strconv.Itoa(os.Getpid()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil
	}
	c := &memCgroup{dir: dir}
	write := func(name, value string) error {
		return os.WriteFile(filepath.Join(dir, name), []byte(value), 0)
	}
	if write("memory.max", strconv.FormatUint(max, 10)) != nil {
		c.remove()
		return nil
	}
	// Without swap accounting there is no memory.swap.max, and nothing
	// to swap to beyond memory.max either.
	if err := write("memory.swap.max", "0"); err != nil && !errors.Is(err, os.ErrNotExist) {
		c.remove()
		return nil
	}
	if c.fd, err = os.Open(dir); err != nil {
		c.remove()
		return nil
	}
	return c
}

// cgroupBase is the directory, under root, where a cgroup with the memory
// controller can be made beside the one /proc/self/cgroup (self) names.
func cgroupBase(root string, self []byte) (string, bool) {
	sc := bufio.NewScanner(bytes.NewReader(self))
	for sc.Scan() {
		path, ok := strings.CutPrefix(sc.Text(), "0::")
		if !ok || !strings.HasPrefix(path, "/") || strings.Contains(path, " (deleted)") {
			continue
		}
		base := filepath.Join(root, filepath.Dir(path))
		if path == "/" {
			base = root
		}
		ctl, err := os.ReadFile(filepath.Join(base, "cgroup.subtree_control"))
		if err != nil || !slices.Contains(strings.Fields(string(ctl)), "memory") {
			return "", false
		}
		return base, true
	}
	return "", false
}

// removeStale removes the cgroups of evaluations whose zap-eval is gone
// (killed before it could remove its own); one a process is still in
// can't be removed.
func removeStale(base string) {
	entries, _ := os.ReadDir(base)
	for _, e := range entries {
		pid, err := strconv.Atoi(strings.TrimPrefix(e.Name(), cgroupPrefix))
		if !e.IsDir() || !strings.HasPrefix(e.Name(), cgroupPrefix) || err != nil || pid <= 0 {
			continue
		}
		if syscall.Kill(pid, 0) == syscall.ESRCH {
			syscall.Rmdir(filepath.Join(base, e.Name()))
		}
	}
}

// start starts the command newCmd makes, in c when there is one. Should
// the kernel refuse to start it there, it starts without: the process's
// own limits still hold.
func (c *memCgroup) start(newCmd func() *exec.Cmd) (*exec.Cmd, error) {
	cmd := newCmd()
	if c == nil {
		return cmd, cmd.Start()
	}
	cmd.SysProcAttr.UseCgroupFD = true
	cmd.SysProcAttr.CgroupFD = int(c.fd.Fd())
	if err := cmd.Start(); err == nil {
		return cmd, nil
	}
	cmd = newCmd()
	return cmd, cmd.Start()
}

// oomKilled reports whether the kernel killed a process in c for passing
// memory.max.
func (c *memCgroup) oomKilled() bool {
	if c == nil {
		return false
	}
	events, err := os.ReadFile(filepath.Join(c.dir, "memory.events"))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(events), "\n") {
		if n, ok := strings.CutPrefix(line, "oom_kill "); ok && n != "0" {
			return true
		}
	}
	return false
}

// remove removes c, once the process in it has ended.
func (c *memCgroup) remove() {
	if c == nil {
		return
	}
	if c.fd != nil {
		c.fd.Close()
	}
	// The kernel may take a moment to let go of a process just reaped.
	for range 20 {
		if err := syscall.Rmdir(c.dir); err == nil || !errors.Is(err, syscall.EBUSY) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}
