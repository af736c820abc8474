package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The restricted checks run in a child process: Landlock can't be lifted
// from the process that applied it.
const childEnv = "ZAP_SANDBOX_TEST_CHILD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(childEnv); dir != "" {
		os.Exit(child(dir))
	}
	if dir := os.Getenv(filterEnv); dir != "" {
		os.Exit(filterChild(dir))
	}
	os.Exit(m.Run())
}

// child restricts itself to dir/proj and reports, one line each, what it
// could do.
func child(dir string) int {
	proj := filepath.Join(dir, "proj")
	if err := Restrict(proj, filepath.Join(dir, "linked")); err != nil {
		fmt.Println("restrict:", err)
		return 1
	}
	try := func(what string, err error) {
		switch {
		case err == nil:
			fmt.Println(what, "ok")
		case errors.Is(err, fs.ErrPermission):
			fmt.Println(what, "denied")
		default:
			fmt.Println(what, "error:", err)
		}
	}
	read := func(p string) error { _, err := os.ReadFile(p); return err }
	try("read inside", read(filepath.Join(proj, "zap.ts")))
	try("read linked", read(filepath.Join(proj, "node_modules/pkg/index.ts")))
	try("read outside", read(filepath.Join(dir, "outside/secret.ts")))
	try("read outside through a link", read(filepath.Join(proj, "link.ts")))
	try("list above", func() error { _, err := os.ReadDir(dir); return err }())
	try("read /etc/passwd", read("/etc/passwd"))
	try("write inside", os.WriteFile(filepath.Join(proj, "new.ts"), nil, 0o644))
	_, err := os.Stat(filepath.Join(dir, "outside/secret.ts"))
	try("stat outside", err)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err == nil {
		conn, cerr := net.Dial("tcp", l.Addr().String())
		if cerr == nil {
			conn.Close()
		}
		l.Close()
		err = cerr
	} else {
		err = fmt.Errorf("listen: %w", err)
	}
	if errors.Is(err, syscall.EACCES) {
		err = fs.ErrPermission
	}
	try("tcp connect", err)
	return 0
}

func TestRestrict(t *testing.T) {
	if abi := ABI(); abi < 4 {
		t.Skipf("this kernel's Landlock ABI is %d; the sandbox test needs 4 or later", abi)
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"proj/zap.ts":       "export default () => {};",
		"outside/secret.ts": "export const secret = 1;",
		"linked/index.ts":   "export const l = 1;",
	} {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(dir, "proj/node_modules"), 0o755)
	for link, target := range map[string]string{
		"proj/link.ts":          filepath.Join(dir, "outside/secret.ts"),
		"proj/node_modules/pkg": filepath.Join(dir, "linked"),
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	want := strings.Join([]string{
		"read inside ok",
		"read linked ok",
		"read outside denied",
		"read outside through a link denied",
		"list above denied",
		"read /etc/passwd denied",
		"write inside denied",
		"stat outside ok",
		"tcp connect denied",
	}, "\n") + "\n"
	if string(out) != want {
		t.Fatalf("in the sandbox:\n%s\nwant:\n%s", out, want)
	}
}

// TestRestrictEvictedDentries restricts child after child while the
// kernel's dentry cache is being dropped (as memory pressure drops it): a
// cgo build (this test binary, under -race) reaches every thread through
// libpsx, which dies with "failed to read /proc/PID/task - aborting" when
// Landlock denies it that directory (pin_cgo.go). Every child must come up
// restricted.
func TestRestrictEvictedDentries(t *testing.T) {
	if abi := ABI(); abi < 4 {
		t.Skipf("this kernel's Landlock ABI is %d; the sandbox test needs 4 or later", abi)
	}
	const dropCaches = "/proc/sys/vm/drop_caches"
	if f, err := os.OpenFile(dropCaches, os.O_WRONLY, 0); err != nil {
		t.Skipf("can't drop the dentry cache to provoke the eviction (%v): needs root", err)
	} else {
		f.Close()
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "proj"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "proj/zap.ts"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	dropped := make(chan struct{})
	go func() {
		defer close(dropped)
		for {
			select {
			case <-stop:
				return
			default:
			}
			// 2: dentries and inodes, not the page cache.
			os.WriteFile(dropCaches, []byte("2"), 0)
		}
	}()
	defer func() { close(stop); <-dropped }()
	for i := range 10 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.HasPrefix(string(out), "read inside ok\n") {
			t.Fatalf("child %d: %v\n%s", i, err, out)
		}
	}
}

// filterEnv makes the test binary a child that restricts itself, applies
// the seccomp filter, reports what it can still do, and waits for its
// stdin to close so the parent can read its /proc status.
const filterEnv = "ZAP_SANDBOX_TEST_FILTER"

// filterChild is the child TestFilter reads: it walls itself in as
// zap-eval's evaluating process does (Restrict, then Filter), tries what
// the filter must refuse and what the runtime still needs, one line each.
func filterChild(dir string) int {
	if err := Restrict(dir); err != nil {
		fmt.Println("restrict:", err)
		return 1
	}
	root, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		fmt.Println("open root:", err)
		return 1
	}
	if err := Filter(root); err != nil {
		fmt.Println("filter:", err)
		return 1
	}
	if os.Getenv(x32Env) != "" {
		// getpid through x32's numbering on amd64's entry: killed.
		syscall.RawSyscall(syscall.SYS_GETPID|0x40000000, 0, 0, 0)
		fmt.Println("x32 call returned")
		return 0
	}
	try := func(what string, err error) {
		switch {
		case err == nil:
			fmt.Println(what, "ok")
		case errors.Is(err, syscall.EPERM):
			fmt.Println(what, "EPERM")
		default:
			fmt.Println(what, "error:", err)
		}
	}
	_, err = syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	try("socket", err)
	_, err = syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	try("unix socket", err)
	try("execve", syscall.Exec("/bin/true", []string{"true"}, nil))
	try("fork", rawFork(syscall.SYS_FORK, 0))
	try("clone a process", rawFork(syscall.SYS_CLONE, uintptr(syscall.SIGCHLD)))
	_, err = syscall.Open(filepath.Join(dir, "file"), syscall.O_RDONLY, 0)
	try("open inside", err)
	// A project file, read under the root's descriptor alone.
	how := &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_BENEATH}
	fd, err := unix.Openat2(root, "file", how)
	if err == nil {
		var st unix.Stat_t
		err = unix.Fstat(fd, &st)
		if err == nil {
			err = unix.Close(fd)
		}
	}
	try("openat2 under the root", err)
	_, err = unix.Openat2(unix.AT_FDCWD, filepath.Join(dir, "file"), how)
	try("openat2 elsewhere", err)
	try("ptrace", errnoErr(ptraceMe()))
	try("kill another", syscall.Kill(1, 0))
	try("kill self", syscall.Kill(os.Getpid(), 0))
	try("setrlimit", syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: 1 << 40, Max: 1 << 40}))
	_, err = syscall.Mmap(-1, 0, 4096, syscall.PROT_READ|syscall.PROT_EXEC, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	try("mmap executable", err)
	m, err := syscall.Mmap(-1, 0, 4096, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err == nil {
		err = syscall.Munmap(m)
	}
	try("mmap", err)
	// New threads, as the runtime makes them under load: each goroutine
	// holds its own while it sleeps.
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			time.Sleep(20 * time.Millisecond)
		})
	}
	wg.Wait()
	fmt.Println("threads ok")
	// The parent reads /proc/PID/status now; a closed stdin ends it.
	io.Copy(io.Discard, os.Stdin)
	return 0
}

func errnoErr(e syscall.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

// TestFilter applies the filter in a child and checks that every thread of
// it shows it (Seccomp: 2 in /proc/PID/task/*/status) and that it refuses
// sockets, exec, fork, open, ptrace, signals to others, setrlimit and
// executable memory with EPERM, while threads still start.
func TestFilter(t *testing.T) {
	if abi := ABI(); abi < MinABI {
		t.Skipf("this kernel's Landlock ABI is %d; the sandbox needs %d", abi, MinABI)
	}
	if auditArch == 0 {
		t.Skipf("the filter isn't built for %s", runtime.GOARCH)
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), filterEnv+"="+dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var lines []string
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if sc.Text() == "threads ok" || strings.HasPrefix(sc.Text(), "restrict:") || strings.HasPrefix(sc.Text(), "filter:") {
			break
		}
	}
	// Every thread, those made before the filter and after, carries it.
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", cmd.Process.Pid))
	if err != nil || len(tasks) == 0 {
		t.Fatalf("no threads of the child: %v", err)
	}
	for _, task := range tasks {
		status, err := os.ReadFile(task)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"\nSeccomp:\t2\n", "\nNoNewPrivs:\t1\n"} {
			if !strings.Contains(string(status), want) {
				t.Errorf("%s lacks %q", task, strings.TrimSpace(want))
			}
		}
	}
	stdin.Close()
	io.Copy(io.Discard, stdout)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v\n%s\n%s", err, strings.Join(lines, "\n"), stderr.String())
	}
	want := []string{
		"socket EPERM",
		"unix socket EPERM",
		"execve EPERM",
		"fork EPERM",
		"clone a process EPERM",
		"open inside EPERM",
		"openat2 under the root ok",
		"openat2 elsewhere EPERM",
		"ptrace EPERM",
		"kill another EPERM",
		"kill self ok",
		"setrlimit EPERM",
		"mmap executable EPERM",
		"mmap ok",
		"threads ok",
	}
	if got := strings.Join(lines, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("behind the filter:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	t.Logf("%d threads filtered; allowed: %s", len(tasks), strings.Join(Allowed(), " "))
}

// TestFilterProgram checks the filter's shape without applying it: the
// architecture is checked first, x32 and foreign calls kill, and every
// jump lands inside the program.
func TestFilterProgram(t *testing.T) {
	if auditArch == 0 {
		if _, err := program(1, 3); !errors.Is(err, ErrUnsupported) {
			t.Fatalf("program on %s: %v, want ErrUnsupported", runtime.GOARCH, err)
		}
		return
	}
	prog, err := program(1234, 3)
	if err != nil {
		t.Fatal(err)
	}
	if prog[0].K != offArch || prog[1].K != auditArch {
		t.Errorf("the program starts %+v %+v, not with the architecture check", prog[0], prog[1])
	}
	for i, in := range prog {
		if in.Code&0x07 == 0x05 && (i+1+int(in.Jt) >= len(prog) || i+1+int(in.Jf) >= len(prog)) {
			t.Errorf("instruction %d jumps past the end", i)
		}
	}
	last := prog[len(prog)-1]
	if last.Code != 0x06 || last.K != 0x80000000 {
		t.Errorf("the program ends %+v, not with kill", last)
	}
}

// rawFork forks with the system call nr; a child that comes of it (the
// filter failed) exits at once.
func rawFork(nr, flags uintptr) error {
	r, _, errno := syscall.RawSyscall(nr, flags, 0, 0)
	if errno == 0 && r == 0 {
		syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 3, 0, 0)
	}
	return errnoErr(errno)
}

// x32Env has filterChild make an x32 call after the filter.
const x32Env = "ZAP_SANDBOX_TEST_X32"

// TestFilterKillsX32 checks that a call through x32's numbering kills the
// process rather than reaching a table the filter doesn't list.
func TestFilterKillsX32(t *testing.T) {
	if abi := ABI(); abi < MinABI {
		t.Skipf("this kernel's Landlock ABI is %d; the sandbox needs %d", abi, MinABI)
	}
	if runtime.GOARCH != "amd64" {
		t.Skip("x32 is amd64's")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), filterEnv+"="+t.TempDir(), x32Env+"=1")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGSYS {
		t.Fatalf("child: %v, want killed by SIGSYS\n%s", err, out)
	}
}

func ptraceMe() syscall.Errno {
	_, _, e := syscall.RawSyscall(syscall.SYS_PTRACE, syscall.PTRACE_TRACEME, 0, 0)
	return e
}
