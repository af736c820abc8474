package sandbox

import "golang.org/x/sys/unix"

// auditArch is the architecture every call must come through.
const auditArch = unix.AUDIT_ARCH_X86_64

// foreignBit marks an x32 call on amd64's entry.
const foreignBit = 0x40000000

// allowed are the calls an evaluation makes once its config is bundled,
// measured with strace -f on the evaluating process of examples/server,
// examples/demo, a config of 2,000 resources and one that churns its heap
// (futex, nanosleep, sched_yield, epoll_pwait and read of the runtime's
// poller, write, madvise and munmap of the collector, getpid, tgkill and
// rt_sigreturn of preemption); and those the runtime makes seldom: a new
// thread's (sigaltstack, rt_sigprocmask, gettid), a thread's end (exit), a
// call a signal interrupted (restart_syscall), the clock without the vDSO
// (clock_gettime), a crash report's signal handling (rt_sigaction).
var allowed = []sysc{
	{"futex", unix.SYS_FUTEX},
	{"read", unix.SYS_READ},
	{"write", unix.SYS_WRITE},
	{"munmap", unix.SYS_MUNMAP},
	{"madvise", unix.SYS_MADVISE},
	{"epoll_pwait", unix.SYS_EPOLL_PWAIT},
	{"nanosleep", unix.SYS_NANOSLEEP},
	{"sched_yield", unix.SYS_SCHED_YIELD},
	{"rt_sigaction", unix.SYS_RT_SIGACTION},
	{"rt_sigprocmask", unix.SYS_RT_SIGPROCMASK},
	{"rt_sigreturn", unix.SYS_RT_SIGRETURN},
	{"sigaltstack", unix.SYS_SIGALTSTACK},
	{"gettid", unix.SYS_GETTID},
	{"getpid", unix.SYS_GETPID},
	{"clock_gettime", unix.SYS_CLOCK_GETTIME},
	{"exit", unix.SYS_EXIT},
	{"restart_syscall", unix.SYS_RESTART_SYSCALL},
	{"exit_group", unix.SYS_EXIT_GROUP},
	// A project file's read (Filter's root): its descriptors' fstat and
	// close; openat2 is narrowed.
	{"fstat", unix.SYS_FSTAT},
	{"close", unix.SYS_CLOSE},
}

// narrowed are allowed only with the arguments Filter describes: mmap
// (the heap, stacks), clone (threads), clone3 (ENOSYS), tgkill and kill
// (preemption, a crash's own signal), openat2 (under the project's root).
var narrowed = []sysc{
	{"mmap", unix.SYS_MMAP},
	{"clone", unix.SYS_CLONE},
	{"clone3", unix.SYS_CLONE3},
	{"tgkill", unix.SYS_TGKILL},
	{"kill", unix.SYS_KILL},
	{"openat2", unix.SYS_OPENAT2},
}
