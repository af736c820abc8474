package zapeval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/zap-go/zap/internal/envpass"
	"github.com/zap-go/zap/internal/project"
	"github.com/zap-go/zap/internal/stage"
)

// child is an evaluation to run in a process of its own.
type child struct {
	proj *project.Project
	// owners are the users whose directories the walk to proj went
	// through; the child walks through the same.
	owners []uint32
	// cred is whom the child runs as; nil: zap-eval's own user.
	cred *syscall.Credential
	// inputs asks for the inputs document.
	inputs bool
	// limit is when the child is killed.
	limit time.Duration
	// env is the long variables zap-eval was handed (internal/envpass),
	// handed on: the child's secret gate reads them too.
	env *envpass.Env
}

// result is what an evaluating process that succeeded wrote.
type result struct {
	decl, inputs []byte
}

// maxCrash is how much of what the Go runtime writes in the child (fd 2)
// is kept: its report of a crash, passed on, or of running out of memory.
const maxCrash = 1 << 20

// evaluateIn runs the evaluation in a child process (child.go) and watches
// it: the child is killed once it has run c.limit, or when ctx ends, and
// dies with zap-eval (PR_SET_PDEATHSIG). Its memory is bounded by its own
// hard limits and, where the kernel and the caller's cgroup allow, by a
// memory cgroup of its own (cgroup.go). What it writes to stdout and the
// inputs pipe is kept here and handed back only when it exits 0, so a
// killed evaluation leaves no partial declaration anywhere. A child that
// exits 1 or 2 has said why on stderr: the error carries its exit code
// and errDone. A child stopped by a limit is the limit's refusal, exit 2.
func evaluateIn(ctx context.Context, c child, stderr io.Writer) (*result, error) {
	args := []string{"--" + childFlag + "=" + c.proj.Root, "--" + ownersFlag + "=" + formatOwners(c.owners)}
	// The parent closes its copy of a child's end once the child has
	// started, and every other descriptor here once it has ended.
	var childEnds, ours []*os.File
	defer func() {
		for _, f := range append(childEnds, ours...) {
			f.Close()
		}
	}()
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			ours, childEnds = append(ours, r), append(childEnds, w)
		}
		return r, w, err
	}
	declR, declW, err := pipe()
	if err != nil {
		return nil, ownErr(err)
	}
	crashR, crashW, err := pipe()
	if err != nil {
		return nil, ownErr(err)
	}
	// The child reports on a descriptor of zap-eval's stderr itself, so
	// its lines and the config's console come out as they are written.
	errFile, copied, err := fileFor(stderr)
	if err != nil {
		return nil, ownErr(err)
	}
	if copied != nil {
		childEnds = append(childEnds, errFile)
	}
	extra := []*os.File{errFile}
	var inR *os.File
	if c.inputs {
		var inW *os.File
		if inR, inW, err = pipe(); err != nil {
			return nil, ownErr(err)
		}
		extra = append(extra, inW)
		args = append(args, fmt.Sprintf("--%s=%d", inputsFDFlag, childInputs))
	}
	var envFile *os.File
	if c.env != nil {
		if envFile, err = c.env.File(); err != nil {
			return nil, ownErr(fmt.Errorf("hand on %s: %w", envpass.FDVar, err))
		}
		if envFile != nil {
			ours = append(ours, envFile)
		}
	}
	newCmd := func() *exec.Cmd {
		cmd := exec.Command("/proc/self/exe", append(args, "--", c.proj.Config)...)
		cmd.Args[0] = os.Args[0]
		cmd.Env = os.Environ()
		cmd.Dir = "/"
		cmd.Stdout, cmd.Stderr, cmd.ExtraFiles = declW, crashW, extra
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred, Pdeathsig: syscall.SIGKILL}
		// /proc/self/exe: nothing to release, no error.
		_, _ = envpass.Attach(cmd, envFile)
		return cmd
	}
	cg := newMemoryCgroup(MaxMemory + cgroupSlack)
	defer cg.remove()

	// The parent-death signal is sent when the thread that started the
	// child ends, not the process: keep this goroutine on its thread, so
	// that thread lives as long as the child.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cmd, err := cg.start(newCmd)
	if err != nil {
		return nil, ownErr(fmt.Errorf("start the evaluation: %w", err))
	}
	for _, f := range childEnds {
		f.Close()
	}
	childEnds = nil

	var decl, inputs, crash capped
	decl.max, inputs.max, crash.max = MaxOutput+1, MaxOutput, maxCrash
	var readers sync.WaitGroup
	for _, r := range []struct {
		f *os.File
		c *capped
	}{{declR, &decl}, {crashR, &crash}, {inR, &inputs}} {
		if r.f != nil {
			readers.Go(func() { r.c.readFrom(r.f) })
		}
	}

	var timedOut, canceled atomic.Bool
	watchdog := time.AfterFunc(c.limit, func() {
		timedOut.Store(true)
		cmd.Process.Kill()
	})
	exited := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			canceled.Store(true)
			cmd.Process.Kill()
		case <-exited:
		}
	}()
	waitErr := cmd.Wait()
	close(exited)
	watchdog.Stop()
	readers.Wait()
	if copied != nil {
		<-copied
	}

	st := cmd.ProcessState
	if st == nil {
		return nil, ownErr(fmt.Errorf("run the evaluation: %w", waitErr))
	}
	ws, _ := st.Sys().(syscall.WaitStatus)
	switch {
	case ws.Exited() && ws.ExitStatus() == 0:
		if decl.over || inputs.over {
			return nil, ownErr(errors.New("the evaluating process wrote more than a declaration may be"))
		}
		stderr.Write(crash.buf)
		return &result{decl: decl.buf, inputs: inputs.buf}, nil
	case ws.Signaled() && ws.Signal() == syscall.SIGKILL && timedOut.Load():
		return nil, timeLimitError(c.limit)
	case outOfMemory(crash.buf) || (ws.Signaled() && ws.Signal() == syscall.SIGKILL && cg.oomKilled()):
		return nil, memoryLimitError()
	case canceled.Load():
		return nil, ownErr(fmt.Errorf("the evaluation was canceled: %w", ctx.Err()))
	}
	// Anything else the runtime said is a crash (a panic, a fatal error)
	// and is passed on as it was written, after the child's own lines.
	stderr.Write(crash.buf)
	if ws.Exited() {
		return nil, &stage.Error{Code: ws.ExitStatus(), Err: errDone}
	}
	return nil, ownErr(fmt.Errorf("the evaluating process %s", describe(ws)))
}

// outOfMemoryReport is the Go runtime's report of a process that ran out
// of memory: a hard limit refused it a mapping, for its heap, a stack or a
// thread.
var outOfMemoryReport = regexp.MustCompile(`(?m)^(fatal error: (runtime: )?out of memory|runtime: out of memory|fatal error: runtime: cannot allocate memory|runtime: failed to create new OS thread .*errno=12\))`)

func outOfMemory(report []byte) bool { return outOfMemoryReport.Match(report) }

func describe(ws syscall.WaitStatus) string {
	switch {
	case ws.Signaled() && ws.Signal() == syscall.SIGSYS:
		return "made a system call its seccomp filter forbids (signal SIGSYS)"
	case ws.Signaled():
		return "was killed by signal " + ws.Signal().String()
	}
	return fmt.Sprintf("ended with status %d", ws.ExitStatus())
}

// capped keeps the first max bytes read and drains the rest.
type capped struct {
	max  int
	buf  []byte
	n    int64
	over bool
}

func (c *capped) readFrom(r io.Reader) {
	b := make([]byte, 32<<10)
	for {
		k, err := r.Read(b)
		if k > 0 {
			c.n += int64(k)
			if room := c.max - len(c.buf); room > 0 {
				c.buf = append(c.buf, b[:min(k, room)]...)
			}
			c.over = c.n > int64(c.max)
		}
		if err != nil {
			return
		}
	}
}

// fileFor is w as a file to hand a child: w itself when it is one, else
// the write end of a pipe copied to w, with a channel closed once the copy
// is done.
func fileFor(w io.Writer) (*os.File, chan struct{}, error) {
	if f, ok := w.(*os.File); ok {
		return f, nil, nil
	}
	r, pw, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	done := make(chan struct{})
	go func() {
		io.Copy(w, r)
		r.Close()
		close(done)
	}()
	return pw, done, nil
}
