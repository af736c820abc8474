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
	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/project"
	"github.com/zap-go/zap/internal/stages"
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
	// written, unless nil, is given what the child wrote to stdout once
	// it has closed it, while the child may still run (it checks the
	// declaration after writing it), and before evaluateIn returns;
	// whether the child then exits 0 is evaluateIn's to say.
	written func(decl []byte)
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
	var files childFiles
	defer files.close()
	if err := files.open(c, stderr); err != nil {
		return nil, err
	}
	newCmd := func() *exec.Cmd {
		cmd := exec.Command("/proc/self/exe", append(files.args, "--", c.proj.Config)...)
		cmd.Args[0] = os.Args[0]
		cmd.Env = os.Environ()
		cmd.Dir = "/"
		cmd.Stdout, cmd.Stderr, cmd.ExtraFiles = files.declW, files.crashW, files.extra
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred, Pdeathsig: syscall.SIGKILL}
		// /proc/self/exe: nothing to release, no error.
		_, _ = envpass.Attach(cmd, files.env)
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
	files.closeChildEnds()

	var decl, inputs, crash capped
	decl.max, inputs.max, crash.max = MaxOutput+1, MaxOutput, maxCrash
	var readers sync.WaitGroup
	for _, r := range []struct {
		f *os.File
		c *capped
	}{{files.declR, &decl}, {files.crashR, &crash}, {files.inR, &inputs}} {
		if r.f != nil {
			readers.Go(func() {
				r.c.readFrom(r.f)
				if r.c == &decl && c.written != nil && !decl.over {
					c.written(decl.bytes())
				}
			})
		}
	}
	w := watch(ctx, cmd, c.limit)
	readers.Wait()
	if files.copied != nil {
		<-files.copied
	}

	st := cmd.ProcessState
	if st == nil {
		return nil, ownErr(fmt.Errorf("run the evaluation: %w", w.err))
	}
	ws, _ := st.Sys().(syscall.WaitStatus)
	switch {
	case ws.Exited() && ws.ExitStatus() == 0:
		if decl.over || inputs.over {
			return nil, ownErr(errors.New("the evaluating process wrote more than a declaration may be"))
		}
		stderr.Write(crash.bytes())
		return &result{decl: decl.bytes(), inputs: inputs.bytes()}, nil
	case ws.Signaled() && ws.Signal() == syscall.SIGKILL && w.timedOut.Load():
		return nil, timeLimitError(c.limit)
	case outOfMemory(crash.bytes()) || (ws.Signaled() && ws.Signal() == syscall.SIGKILL && cg.oomKilled()):
		return nil, memoryLimitError()
	case w.canceled.Load():
		return nil, ownErr(fmt.Errorf("the evaluation was canceled: %w", ctx.Err()))
	}
	// Anything else the runtime said is a crash (a panic, a fatal error)
	// and is passed on as it was written, after the child's own lines.
	stderr.Write(crash.bytes())
	if ws.Exited() {
		return nil, &exit.Error{Code: ws.ExitStatus(), Err: errDone, Reported: true}
	}
	return nil, ownErr(fmt.Errorf("the evaluating process %s", describe(ws)))
}

// childFiles are the descriptors an evaluation hands its child and the
// ends zap-eval keeps, with the arguments that tell the child which is
// which. zap-eval closes its copy of a child's end once the child has
// started (closeChildEnds), and every other descriptor here once it has
// ended (close).
type childFiles struct {
	childEnds, ours []*os.File
	// declR, crashR and inR (nil unless the inputs are asked for) are what
	// the child writes to its stdout (declW), its fd 2 (crashW) and the
	// inputs pipe.
	declR, declW, crashR, crashW, inR *os.File
	// extra are the child's descriptors from 3 on: zap-eval's stderr, then
	// the inputs pipe.
	extra []*os.File
	// env holds the long variables handed on (nil: none).
	env *os.File
	// copied, unless nil, is closed once what the child wrote to stderr
	// has been copied to zap-eval's (fileFor).
	copied chan struct{}
	args   []string
}

// open makes the descriptors for the evaluation c, whose child reports on
// stderr. Its errors are zap-eval's own (ownErr).
func (f *childFiles) open(c child, stderr io.Writer) error {
	f.args = []string{"--" + childFlag + "=" + c.proj.Root, "--" + ownersFlag + "=" + formatOwners(c.owners)}
	var err error
	if f.declR, f.declW, err = f.pipe(); err != nil {
		return ownErr(err)
	}
	if f.crashR, f.crashW, err = f.pipe(); err != nil {
		return ownErr(err)
	}
	// The child reports on a descriptor of zap-eval's stderr itself, so
	// its lines and the config's console come out as they are written.
	errFile, copied, err := fileFor(stderr)
	if err != nil {
		return ownErr(err)
	}
	f.copied = copied
	if copied != nil {
		f.childEnds = append(f.childEnds, errFile)
	}
	f.extra = []*os.File{errFile}
	if c.inputs {
		var inW *os.File
		if f.inR, inW, err = f.pipe(); err != nil {
			return ownErr(err)
		}
		f.extra = append(f.extra, inW)
		f.args = append(f.args, fmt.Sprintf("--%s=%d", inputsFDFlag, childInputs))
	}
	if c.env != nil {
		if f.env, err = c.env.File(); err != nil {
			return ownErr(fmt.Errorf("hand on %s: %w", envpass.FDVar, err))
		}
		if f.env != nil {
			f.ours = append(f.ours, f.env)
		}
	}
	return nil
}

// pipe makes a pipe whose read end is zap-eval's and write end the child's.
func (f *childFiles) pipe() (r, w *os.File, err error) {
	r, w, err = os.Pipe()
	if err == nil {
		f.ours, f.childEnds = append(f.ours, r), append(f.childEnds, w)
	}
	return r, w, err
}

// closeChildEnds closes zap-eval's copy of the child's ends.
func (f *childFiles) closeChildEnds() {
	for _, e := range f.childEnds {
		e.Close()
	}
	f.childEnds = nil
}

// close closes every descriptor still open here.
func (f *childFiles) close() {
	f.closeChildEnds()
	for _, o := range f.ours {
		o.Close()
	}
}

// watched is how a watched child ended: Wait's error, and whether the
// time limit or the context killed it.
type watched struct {
	err                error
	timedOut, canceled atomic.Bool
}

// watch waits for the started cmd, killing it once it has run limit or
// when ctx ends.
func watch(ctx context.Context, cmd *exec.Cmd, limit time.Duration) *watched {
	w := new(watched)
	watchdog := time.AfterFunc(limit, func() {
		w.timedOut.Store(true)
		cmd.Process.Kill()
	})
	exited := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			w.canceled.Store(true)
			cmd.Process.Kill()
		case <-exited:
		}
	}()
	w.err = cmd.Wait()
	close(exited)
	watchdog.Stop()
	return w
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

// capped keeps the first max bytes read and drains the rest. What it keeps
// is collected in chunks (stages.Output): the evaluating process can't
// exit before all of its declaration is read here, and one slice grown by
// append is copied again every quarter it grows.
type capped struct {
	max    int
	kept   stages.Output
	n      int64
	over   bool
	joined []byte
}

// bytes is what c kept, once it has read all: joined once.
func (c *capped) bytes() []byte {
	if c.joined == nil {
		c.joined = c.kept.Bytes()
	}
	return c.joined
}

func (c *capped) readFrom(r io.Reader) {
	b := make([]byte, 32<<10)
	for {
		k, err := r.Read(b)
		if k > 0 {
			c.n += int64(k)
			if room := c.max - c.kept.Len(); room > 0 {
				c.kept.Write(b[:min(k, room)])
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
