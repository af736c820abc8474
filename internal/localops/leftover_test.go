package localops

// What a writer killed mid-write leaves beside its path is removed by the
// next write to that directory, and a live writer's staged file never is.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/internal/ops/asroot"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/plan"
)

// helperEnv names the mode the test binary runs in when re-executed as a
// writer: "stall" puts or links, stopping once its file is staged.
const helperEnv = "ZAP_LOCALOPS_HELPER"

// helperStall does op ("put" or "link") at path with arg (the content, or
// the target) natively; once the file is staged (and, for a link, the link
// made beside it) it prints "staged" and waits for a line on stdin.
func helperStall(op, path, arg string) int {
	stagedHook = func(string) {
		fmt.Println("staged")
		bufio.NewReader(os.Stdin).ReadString('\n')
	}
	h := New(nil)
	var err error
	if op == "link" {
		err = h.Link(context.Background(), &execute.Link{Path: path, Target: arg})
	} else {
		err = h.Put(context.Background(), put(path, []byte(arg)))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// stalledWriter is a put or link stopped with its file staged, in a
// process group of its own.
type stalledWriter struct {
	cmd     *exec.Cmd
	release func()
	done    chan error
	out     *bytes.Buffer
}

// kill kills the writer and everything it started, as kill -9 of a run
// does, and waits for it.
func (w *stalledWriter) kill() {
	syscall.Kill(-w.cmd.Process.Pid, syscall.SIGKILL)
	<-w.done
}

// finish lets the writer go on and returns how it ended.
func (w *stalledWriter) finish() error {
	w.release()
	if err := <-w.done; err != nil {
		return fmt.Errorf("%v: %s", err, w.out)
	}
	return nil
}

// startStalled starts op ("put" or "link") at path with arg as backend b
// does it and returns once the writer has its file staged: natively, this
// test binary as a helper; with a script, the shell running it, the tool
// the script runs next once its file is staged (sha512sum, checking the
// content written; ln) held until released.
func startStalled(t *testing.T, b backend, op, path, arg string) *stalledWriter {
	t.Helper()
	w := &stalledWriter{done: make(chan error, 1), out: &bytes.Buffer{}}
	var ready func() bool
	switch b := b.(type) {
	case *Host:
		w.cmd = exec.Command(os.Args[0], "-test.run=^$", op, path, arg)
		w.cmd.Env = append(os.Environ(), helperEnv+"=stall", "GORACE=atexit_sleep_ms=0")
		in, err := w.cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		out, err := w.cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		w.cmd.Stderr = w.out
		lines := make(chan string, 1)
		go func() {
			line, _ := bufio.NewReader(out).ReadString('\n')
			lines <- line
			io.Copy(io.Discard, out)
		}()
		ready = func() bool {
			select {
			case line := <-lines:
				if line != "staged\n" {
					t.Fatalf("the writer said %q: %s", line, w.out)
				}
				return true
			case <-time.After(10 * time.Millisecond):
				return false
			}
		}
		w.release = func() { io.WriteString(in, "go\n") }
	case *scriptHost:
		tool := "sha512sum"
		name := plan.OpPut
		if op == "link" {
			tool, name = "ln", plan.OpLink
		}
		stall := t.TempDir()
		real, err := exec.LookPath(filepath.Join(pathDir(t, b.path, tool), tool))
		if err != nil {
			t.Fatal(err)
		}
		sleep, err := exec.LookPath("sleep")
		if err != nil {
			t.Fatal(err)
		}
		// The link is made, then held; the content is written, then held
		// before its check.
		run, after := "", "exec "+vocab.Quote(real)+` "$@"`
		if op == "link" {
			run, after = vocab.Quote(real)+` "$@" || exit`, "exit 0"
		}
		wrapper := fmt.Sprintf("#!/bin/sh\n%s\n: > %s\nwhile [ ! -e %s ]; do %s 0.02; done\n%s\n", run,
			vocab.Quote(filepath.Join(stall, "ready")), vocab.Quote(filepath.Join(stall, "go")), sleep, after)
		if err := os.WriteFile(filepath.Join(stall, tool), []byte(wrapper), 0o755); err != nil {
			t.Fatal(err)
		}
		script, _ := ops.Script(name)
		var argv []string
		var stdin string
		if op == "link" {
			argv, stdin = []string{path}, ops.Input(script.Text, arg)
		} else {
			p := put(path, []byte(arg))
			shown, hidden := asroot.PutArgs(p, "")
			argv, stdin = shown, string(ops.PutScriptInput(script.Text, p.Content, hidden...))
		}
		w.cmd = exec.Command(b.shell[0], append(append(append([]string(nil), b.shell[1:]...), "-s", "--"), argv...)...)
		w.cmd.Env = []string{"PATH=" + stall + ":" + b.path, "LC_ALL=C"}
		w.cmd.Stdin = strings.NewReader(stdin)
		w.cmd.Stdout, w.cmd.Stderr = w.out, w.out
		ready = func() bool {
			_, err := os.Stat(filepath.Join(stall, "ready"))
			if err != nil {
				time.Sleep(10 * time.Millisecond)
			}
			return err == nil
		}
		w.release = func() { os.WriteFile(filepath.Join(stall, "go"), nil, 0o644) }
	default:
		t.Fatalf("no stalled writer for %T", b)
	}
	w.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { w.done <- w.cmd.Wait() }()
	t.Cleanup(func() { syscall.Kill(-w.cmd.Process.Pid, syscall.SIGKILL) })
	for deadline := time.Now().Add(time.Minute); !ready(); {
		select {
		case err := <-w.done:
			w.done <- err
			t.Fatalf("the %s writer ended before its file was staged: %v: %s", op, err, w.out)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the %s writer didn't stage its file in a minute: %s", op, w.out)
		}
	}
	return w
}

// pathDir is the directory of path (a PATH list) that holds tool.
func pathDir(t *testing.T, path, tool string) string {
	t.Helper()
	for _, d := range filepath.SplitList(path) {
		if fi, err := os.Stat(filepath.Join(d, tool)); err == nil && !fi.IsDir() {
			return d
		}
	}
	t.Fatalf("no %s on %s", tool, path)
	return ""
}

// stagedNames are the .zap.* names in dir.
func stagedNames(t *testing.T, dir string) []string {
	t.Helper()
	left, err := filepath.Glob(filepath.Join(dir, ".zap.*"))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(left)
	return left
}

// locks reports whether backend b stages under an flock in a directory of
// its own, as the test's are: natively always, a script where the shell
// finds flock.
func locks(b backend) bool {
	sh, ok := b.(*scriptHost)
	if !ok {
		return true
	}
	for _, d := range filepath.SplitList(sh.path) {
		if _, err := os.Stat(filepath.Join(d, "flock")); err == nil {
			return true
		}
	}
	return false
}

// withFlock adds to backends a BusyBox whose tools include flock: its own
// applet where it has one (Alpine's), else util-linux's.
func withFlock(t *testing.T, backends map[string]backend) map[string]backend {
	bb, ok := backends["busybox"].(*scriptHost)
	if !ok {
		return backends
	}
	dir := t.TempDir()
	entries, err := os.ReadDir(bb.path)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := os.Symlink(filepath.Join(bb.path, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	flock := bb.shell[0]
	if out, _ := exec.Command(bb.shell[0], "--list").Output(); !slices.Contains(strings.Fields(string(out)), "flock") {
		if flock, err = exec.LookPath("flock"); err != nil {
			t.Log("neither BusyBox nor this machine has flock: BusyBox isn't tried with it")
			return backends
		}
		t.Log("BusyBox has no flock applet here: BusyBox is tried with util-linux's flock")
	}
	if err := os.Symlink(flock, filepath.Join(dir, "flock")); err != nil {
		t.Fatal(err)
	}
	backends["busybox-flock"] = &scriptHost{shell: bb.shell, path: dir, busy: true}
	return backends
}

// TestKilledWritersLeftoversRemoved kills a put and a link mid-write (kill
// -9, their file staged, the link made beside it) and starts a third writer
// it leaves stalled there, alive; the next write to the directory removes
// the killed writers' staged files and link, and leaves the live writer's,
// which then finishes as if nothing happened. A script without flock (a
// BusyBox without the applet) stages .zap.pPID..., its shell's PID in the
// name, and the same holds: a killed writer's file goes, a live one's
// stays. In a directory another account may write (group-writable here),
// nothing is removed.
func TestKilledWritersLeftoversRemoved(t *testing.T) {
	for name, b := range withFlock(t, backends(t)) {
		if _, ok := b.(*Sudo); ok {
			continue // the scripts as root; dash and bash run them as this test's account
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			root := t.TempDir()
			killedPut := startStalled(t, b, "put", filepath.Join(root, "a"), "killed\n")
			killedPut.kill()
			killedLink := startStalled(t, b, "link", filepath.Join(root, "l"), "nowhere")
			killedLink.kill()
			dead := stagedNames(t, root)
			if len(dead) < 2 {
				t.Fatalf("the killed writers left %v, want a staged file each", dead)
			}
			live := startStalled(t, b, "put", filepath.Join(root, "b"), "live\n")
			var alive []string
			for _, n := range stagedNames(t, root) {
				if !slices.Contains(dead, n) {
					alive = append(alive, n)
				}
			}
			if len(alive) != 1 {
				t.Fatalf("the live writer has %v staged, want one file", alive)
			}
			kind := ".zap.lk."
			if !locks(b) {
				kind = ".zap.p"
			}
			if !strings.HasPrefix(filepath.Base(alive[0]), kind) {
				t.Fatalf("the live writer staged %s, want a %s name", alive[0], kind)
			}

			if err := b.Put(ctx, put(filepath.Join(root, "c"), []byte("next\n"))); err != nil {
				t.Fatal(err)
			}
			if got := stagedNames(t, root); !slices.Equal(got, alive) {
				t.Fatalf("after the next write %v are left, want the live writer's %v (killed: %v)", got, alive, dead)
			}
			if err := live.finish(); err != nil {
				t.Fatalf("the live writer: %v", err)
			}
			wantContent(t, filepath.Join(root, "b"), []byte("live\n"))
			wantContent(t, filepath.Join(root, "c"), []byte("next\n"))
			noStaged(t, root)

			// Where another account may write, what is left stays.
			shared := filepath.Join(root, "shared")
			if err := os.Mkdir(shared, 0o770); err != nil {
				t.Fatal(err)
			}
			os.Chmod(shared, 0o770)
			killed := startStalled(t, b, "put", filepath.Join(shared, "a"), "killed\n")
			killed.kill()
			dead = stagedNames(t, shared)
			if err := b.Put(ctx, put(filepath.Join(shared, "c"), []byte("next\n"))); err != nil {
				t.Fatal(err)
			}
			if got := stagedNames(t, shared); len(dead) != 1 || !slices.Equal(got, dead) {
				t.Fatalf("in a group-writable directory %v are left after the next write, want the killed writer's %v", got, dead)
			}
		})
	}
}

// TestRootsNativeLeftoverInAnothersDirectory: a native write as root killed
// in a directory of another account's (zap run as root, writing a home)
// leaves a root-owned staged file the account can't open; root's next
// write there removes it, and leaves a live root writer's and a file of
// the account's own that has a staged file's name.
func TestRootsNativeLeftoverInAnothersDirectory(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: writes as root into another account's directory")
	}
	h := New(nil)
	dir := filepath.Join(t.TempDir(), "home")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	killed := startStalled(t, h, "put", filepath.Join(dir, "a"), "killed\n")
	killed.kill()
	dead := stagedNames(t, dir)
	if len(dead) != 1 {
		t.Fatalf("the killed writer left %v, want one staged file", dead)
	}
	theirs := filepath.Join(dir, ".zap.lk.Theirs")
	if err := os.WriteFile(theirs, []byte("the account's\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(theirs, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	live := startStalled(t, h, "put", filepath.Join(dir, "b"), "live\n")
	var alive []string
	for _, n := range stagedNames(t, dir) {
		if !slices.Contains(dead, n) && n != theirs {
			alive = append(alive, n)
		}
	}
	if len(alive) != 1 {
		t.Fatalf("the live writer has %v staged, want one file", alive)
	}
	if err := h.Put(context.Background(), put(filepath.Join(dir, "c"), []byte("next\n"))); err != nil {
		t.Fatal(err)
	}
	want := append([]string{theirs}, alive...)
	slices.Sort(want)
	if got := stagedNames(t, dir); !slices.Equal(got, want) {
		t.Fatalf("after root's next write %v are left, want the account's file and the live writer's %v (killed: %v)", got, want, dead)
	}
	if err := live.finish(); err != nil {
		t.Fatalf("the live writer: %v", err)
	}
	wantContent(t, filepath.Join(dir, "b"), []byte("live\n"))
}
