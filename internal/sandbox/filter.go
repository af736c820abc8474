package sandbox

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Filter applies the evaluator's seccomp filter to every thread of the
// process (SECCOMP_FILTER_FLAG_TSYNC); threads made later inherit it, and
// it can't be lifted. The process may then make only the system calls an
// evaluation makes once its config is bundled (allowed, in the file of the
// architecture): the Go runtime's memory, threads, signals and scheduling,
// and reads and writes on the descriptors it holds. Every other call
// fails with EPERM: no open, no socket, no exec or fork, no ptrace, no
// mount, no setrlimit. A few are narrowed by their arguments: clone only
// makes threads (CLONE_THREAD and CLONE_VM), clone3, whose arguments a
// filter can't read, fails with ENOSYS so the runtime falls back to clone,
// kill and tgkill reach only the process itself, and mmap (and mprotect,
// which only a cgo build may call) never makes memory executable. A call through another architecture's
// entry (int 0x80, x32) kills the process.
//
// root, when it isn't -1, is the descriptor of the project's root
// (internal/projfile): openat2 is let through under it alone, with fstat
// and close, so the config's project files can be read (project_text and
// its kin). openat2's flags and resolve mode are in memory a filter can't
// read; what it opens is bounded by Landlock (read-only, the project and
// its packages) and by the descriptor (projfile asks RESOLVE_BENEATH).
//
// zap-eval applies it in the evaluating process after Restrict and after
// bundling, just before the config runs. On an architecture the filter
// isn't built for it refuses (ErrUnsupported).
func Filter(root int) error {
	prog, err := program(os.Getpid(), root)
	if err != nil {
		return err
	}
	// The runtime makes its poller (epoll_create1, eventfd2, epoll_ctl:
	// calls the filter refuses) with the first timer it holds: have it now.
	time.AfterFunc(time.Hour, func() {}).Stop()
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	// no_new_privs is a thread's own: set it on the thread that installs
	// the filter; TSYNC sets it on the others.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("seccomp: set no_new_privs: %w", err)
	}
	r, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	switch {
	case errno != 0:
		return fmt.Errorf("seccomp: %w", errno)
	case r != 0:
		// TSYNC names a thread it couldn't give the filter.
		return fmt.Errorf("seccomp: thread %d can't take the filter", r)
	}
	return nil
}

// Allowed names the system calls the filter lets through, some of them
// only with the arguments Filter describes.
func Allowed() []string {
	var names []string
	for _, s := range slices.Concat(allowed, cgoAllowed, narrowed, cgoNarrowed) {
		names = append(names, s.name)
	}
	return names
}

// sysc is a system call by name and number.
type sysc struct {
	name string
	nr   uint32
}

// The offsets of struct seccomp_data's fields.
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16
)

// argLo and argHi are the offsets of the low and high 32 bits of argument
// i (little-endian).
func argLo(i int) uint32 { return uint32(offArg0 + 8*i) }
func argHi(i int) uint32 { return uint32(offArg0 + 8*i + 4) }

// The filter's verdicts.
const (
	lAllow  = "allow"
	lDeny   = "deny"
	lNosys  = "enosys"
	lKill   = "kill"
	lNext   = ""
	protExe = unix.PROT_EXEC
)

// program builds the filter for the running architecture; pid is the
// process kill and tgkill may reach, root the descriptor openat2 may open
// under (-1: none).
func program(pid, root int) ([]unix.SockFilter, error) {
	if auditArch == 0 {
		return nil, fmt.Errorf("%w: the seccomp filter isn't built for %s", ErrUnsupported, runtime.GOARCH)
	}
	var a asm
	a.ld(offArch)
	a.jeq(auditArch, lNext, lKill)
	a.ld(offNr)
	if foreignBit != 0 {
		// x32's calls carry this bit on amd64's entry.
		a.jset(foreignBit, lKill, lNext)
	}
	for _, s := range slices.Concat(allowed, cgoAllowed) {
		a.jeq(s.nr, lAllow, lNext)
	}
	for _, s := range slices.Concat(narrowed, cgoNarrowed) {
		next := "after_" + s.name
		a.jeq(s.nr, lNext, next)
		switch s.name {
		case "clone":
			// Threads only: a new process would share nothing.
			a.ld(argLo(0))
			a.and(unix.CLONE_THREAD | unix.CLONE_VM)
			a.jeq(unix.CLONE_THREAD|unix.CLONE_VM, lAllow, lDeny)
		case "clone3":
			a.ret(unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS))
		case "kill", "tgkill":
			a.ld(argHi(0))
			a.jeq(0, lNext, lDeny)
			a.ld(argLo(0))
			a.jeq(uint32(pid), lAllow, lDeny)
		case "openat2":
			if root < 0 {
				a.ret(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
				break
			}
			a.ld(argHi(0))
			a.jeq(0, lNext, lDeny)
			a.ld(argLo(0))
			a.jeq(uint32(root), lAllow, lDeny)
		case "mmap", "mprotect":
			a.ld(argLo(2))
			a.jset(protExe, lDeny, lAllow)
		default:
			return nil, fmt.Errorf("seccomp: no rule for %s", s.name)
		}
		a.label(next)
		a.ld(offNr)
	}
	a.ret(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	a.label(lDeny)
	a.ret(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	a.label(lAllow)
	a.ret(unix.SECCOMP_RET_ALLOW)
	a.label(lKill)
	a.ret(unix.SECCOMP_RET_KILL_PROCESS)
	return a.assemble()
}

// asm assembles classic BPF with forward jumps to labels.
type asm struct {
	ins    []unix.SockFilter
	jumps  []jump
	labels map[string]int
}

// jump is a conditional jump's targets, by label ("" the next instruction).
type jump struct {
	at     int
	jt, jf string
}

func (a *asm) ld(off uint32) {
	a.ins = append(a.ins, unix.SockFilter{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: off})
}

func (a *asm) and(k uint32) {
	a.ins = append(a.ins, unix.SockFilter{Code: unix.BPF_ALU | unix.BPF_AND | unix.BPF_K, K: k})
}

func (a *asm) ret(k uint32) {
	a.ins = append(a.ins, unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: k})
}

func (a *asm) jeq(k uint32, jt, jf string)  { a.cond(unix.BPF_JEQ, k, jt, jf) }
func (a *asm) jset(k uint32, jt, jf string) { a.cond(unix.BPF_JSET, k, jt, jf) }

func (a *asm) cond(op uint16, k uint32, jt, jf string) {
	a.jumps = append(a.jumps, jump{len(a.ins), jt, jf})
	a.ins = append(a.ins, unix.SockFilter{Code: unix.BPF_JMP | op | unix.BPF_K, K: k})
}

func (a *asm) label(name string) {
	if a.labels == nil {
		a.labels = map[string]int{}
	}
	a.labels[name] = len(a.ins)
}

// assemble resolves the jumps: each goes forward, at most 255
// instructions, as classic BPF requires.
func (a *asm) assemble() ([]unix.SockFilter, error) {
	off := func(from int, label string) (uint8, error) {
		if label == lNext {
			return 0, nil
		}
		to, ok := a.labels[label]
		if !ok {
			return 0, fmt.Errorf("seccomp: no label %q", label)
		}
		d := to - from - 1
		if d < 0 || d > 255 {
			return 0, fmt.Errorf("seccomp: a jump to %q spans %d instructions", label, d)
		}
		return uint8(d), nil
	}
	for _, j := range a.jumps {
		var err1, err2 error
		a.ins[j.at].Jt, err1 = off(j.at, j.jt)
		a.ins[j.at].Jf, err2 = off(j.at, j.jf)
		if err := errors.Join(err1, err2); err != nil {
			return nil, err
		}
	}
	if len(a.ins) > unix.BPF_MAXINSNS {
		return nil, fmt.Errorf("seccomp: %d instructions, more than %d", len(a.ins), unix.BPF_MAXINSNS)
	}
	return a.ins, nil
}
