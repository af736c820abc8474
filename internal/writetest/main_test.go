package writetest

import (
	"bytes"
	"context"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/localops"
	"github.com/zap-go/zap/internal/scripttest"
	"github.com/zap-go/zap/internal/sshhost"
	"github.com/zap-go/zap/internal/vocab"
)

// helperEnv names the helper mode the test binary runs in when it is
// re-executed: "put" (a write, then exit) or "swap" (the attacker's loop).
const helperEnv = "ZAP_WRITETEST_HELPER"

// noExitSleep keeps a helper built with -race from sleeping a second at exit.
const noExitSleep = "GORACE=atexit_sleep_ms=0"

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "":
		os.Exit(m.Run())
	case "put":
		os.Exit(helperPut(os.Args[len(os.Args)-2], os.Args[len(os.Args)-1]))
	case "swap":
		os.Exit(helperSwap(os.Args[len(os.Args)-3], os.Args[len(os.Args)-2], os.Args[len(os.Args)-1]))
	case "elevated":
		os.Exit(helperElevated(os.Args[len(os.Args)-2], os.Args[len(os.Args)-1], false))
	case "elevatedbody":
		os.Exit(helperElevated(os.Args[len(os.Args)-2], os.Args[len(os.Args)-1], true))
	case "extract":
		os.Exit(helperExtract(os.Args[len(os.Args)-2], os.Args[len(os.Args)-1]))
	}
	fmt.Fprintf(os.Stderr, "unknown helper %q\n", os.Getenv(helperEnv))
	os.Exit(2)
}

// helperPut writes the content of the file src to path, as zap-exec does.
// It prints "ready" just before the write and how long the write took
// (nanoseconds) after it.
func helperPut(path, src string) int {
	b, err := os.ReadFile(src)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	h := localops.New(nil)
	p := put(path, b, "")
	fmt.Println("ready")
	start := time.Now()
	if err := h.Put(context.Background(), p); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(int64(time.Since(start)))
	return 0
}

// helperElevated writes content to path as zap-exec does on a local target
// (localops, Elevated its sudo fallback), and prints the failure; with
// body, as a Body, as a remote file's cached bytes are written (streamed:
// under sudo the put script runs as sudo -n sh -c).
func helperElevated(path, content string, body bool) int {
	h := localops.New(os.Environ())
	h.Elevated = localops.NewSudo(h)
	p := put(path, []byte(content), "")
	if body {
		p = bodyPut(path, []byte(content), "")
	}
	if err := h.Put(context.Background(), p); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// helperSwap is the attacker: in dir, until killed, it puts a symbolic link
// to each of victims in turn at name and at every staged .zap.* name.
func helperSwap(dir, name, victims string) int {
	targets := strings.Split(victims, ":")
	d, err := os.Open(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	tmp := fmt.Sprintf(".attack.%d", os.Getpid())
	for i := 0; ; i++ {
		d.Seek(0, io.SeekStart)
		names, _ := d.Readdirnames(-1)
		names = append(names, name)
		for _, n := range names {
			if n != name && !strings.HasPrefix(n, ".zap.") {
				continue
			}
			os.Remove(filepath.Join(dir, tmp))
			if os.Symlink(targets[i%len(targets)], filepath.Join(dir, tmp)) == nil {
				os.Rename(filepath.Join(dir, tmp), filepath.Join(dir, n))
			}
		}
	}
}

func put(path string, content []byte, mode string) *execute.Put {
	s := sha512.Sum512(content)
	return &execute.Put{Path: path, Content: content, SHA512: hex.EncodeToString(s[:]), Mode: mode}
}

// world is one test's machine: base (root's, 0755, off any shared
// directory), the victim directory only root reaches with its secret, and
// the attacker's directory.
type world struct {
	t        *testing.T
	base     string
	secret   string // base/root/secret, root's, mode 600
	pwned    string // base/root/pwned, which must never exist
	att      string // base/att, zaptest's
	uid, gid int    // zaptest's
	bin      string // the test binary, where zaptest can run it
}

const secretText = "root's secret\n"

// setup returns a world, or skips (saying why) when the test can't play
// the attacker.
func setup(t *testing.T) *world {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("skipped: the attacks run as the account zaptest, which needs the tests to run as root (CI does)")
	}
	u, err := user.Lookup("zaptest")
	if err != nil {
		t.Skip("skipped: no account zaptest to attack as (useradd --system zaptest)")
	}
	w := &world{t: t}
	w.uid, _ = strconv.Atoi(u.Uid)
	w.gid, _ = strconv.Atoi(u.Gid)
	var parent string
	for _, p := range []string{"/run", "/var/lib", "/srv"} {
		var st unix.Stat_t
		if unix.Stat(p, &st) == nil && st.Uid == 0 && st.Mode&0o7022 == 0 {
			parent = p
			break
		}
	}
	if parent == "" {
		t.Skip("skipped: no directory of root's that others can't write (/run, /var/lib, /srv) to hold the tests")
	}
	w.base, err = os.MkdirTemp(parent, "zap-writetest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(w.base) })
	must(t, os.Chmod(w.base, 0o755))
	must(t, os.Mkdir(filepath.Join(w.base, "root"), 0o700))
	w.secret = filepath.Join(w.base, "root", "secret")
	w.pwned = filepath.Join(w.base, "root", "pwned")
	must(t, os.WriteFile(w.secret, []byte(secretText), 0o600))
	w.att = filepath.Join(w.base, "att")
	must(t, os.Mkdir(w.att, 0o755))
	must(t, os.Chown(w.att, w.uid, w.gid))
	exe, err := os.Executable()
	must(t, err)
	b, err := os.ReadFile(exe)
	must(t, err)
	w.bin = filepath.Join(w.base, "writetest.test")
	must(t, os.WriteFile(w.bin, b, 0o755))
	return w
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// as runs argv as zaptest and fails the test when it fails.
func (w *world) as(argv ...string) {
	w.t.Helper()
	cmd := w.cmd(argv...)
	if out, err := cmd.CombinedOutput(); err != nil {
		w.t.Fatalf("as zaptest, %s: %v\n%s", strings.Join(argv, " "), err, out)
	}
}

// can reports whether zaptest can run argv successfully.
func (w *world) can(argv ...string) bool {
	return w.cmd(argv...).Run() == nil
}

func (w *world) cmd(argv ...string) *exec.Cmd {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C", noExitSleep}
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(w.uid), Gid: uint32(w.gid), NoSetGroups: true}}
	return cmd
}

// intact fails the test when anything was written where the attacker
// pointed: the secret changed in content, mode or owner, pwned exists, or
// any other name appeared in root's directory.
func (w *world) intact() {
	w.t.Helper()
	b, err := os.ReadFile(w.secret)
	if err != nil || string(b) != secretText {
		w.t.Fatalf("the secret holds %q (%v), want it untouched", b, err)
	}
	st := lstat(w.t, w.secret)
	if st.Mode&0o7777 != 0o600 || st.Uid != 0 || st.Gid != 0 {
		w.t.Fatalf("the secret is %o %d:%d, want 600 0:0", st.Mode&0o7777, st.Uid, st.Gid)
	}
	if _, err := os.Lstat(w.pwned); !errors.Is(err, os.ErrNotExist) {
		w.t.Fatalf("%s exists: root wrote where the attacker pointed", w.pwned)
	}
	names, _ := filepath.Glob(filepath.Join(w.base, "root", "*"))
	hidden, _ := filepath.Glob(filepath.Join(w.base, "root", ".*"))
	if len(names) != 1 || len(hidden) != 0 {
		w.t.Fatalf("root's directory holds %v %v, want only the secret", names, hidden)
	}
}

func lstat(t *testing.T, path string) *unix.Stat_t {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		t.Fatal(err)
	}
	return &st
}

func wantFile(t *testing.T, path string, content []byte, mode uint32, uid, gid int) {
	t.Helper()
	st := lstat(t, path)
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		t.Fatalf("%s is not a regular file (mode %o)", path, st.Mode)
	}
	got, err := os.ReadFile(path)
	must(t, err)
	if !bytes.Equal(got, content) {
		t.Fatalf("%s holds %q, want %q", path, got, content)
	}
	if st.Mode&0o7777 != mode || int(st.Uid) != uid || int(st.Gid) != gid {
		t.Fatalf("%s is %o %d:%d, want %o %d:%d", path, st.Mode&0o7777, st.Uid, st.Gid, mode, uid, gid)
	}
}

// ops is what a write goes through: Zap's three operations on a host.
type ops interface {
	Put(ctx context.Context, p *execute.Put) error
	Dir(ctx context.Context, d *execute.Dir) error
	Link(ctx context.Context, l *execute.Link) error
}

// target is one way Zap writes on this machine: natively as the local
// target does, or over the loopback sshd as a remote one does.
type target struct {
	ops
	// umask is the writer's: what a file that keeps nothing is given is
	// 0666 less it.
	umask uint32
	// sshd is the private sshd of an SSH target (nil: local).
	sshd *scripttest.SSHD
}

// writers is the mode a file takes that keeps nothing.
func (tg *target) writers() uint32 { return 0o666 &^ tg.umask }

func host() *localops.Host { return localops.New(os.Environ()) }

// local is the local target: localops, which runs as root here.
func local() *target { return &target{ops: host(), umask: localops.Umask()} }

// sshTarget connects to s as zaptest, the account with NOPASSWD sudo there,
// as a remote target's login: the writes go through sshhost.Exec, under
// sudo -n, and a validate command runs as zaptest. (zaptest is the
// attacker's account too: what is checked is what root writes.)
func sshTarget(t *testing.T, s *scripttest.SSHD) *target {
	t.Helper()
	t.Setenv("PATH", s.Bin+string(filepath.ListSeparator)+os.Getenv("PATH"))
	e := dial(t, s)
	// The umask the scripts run with under sudo there.
	probe := filepath.Join(t.TempDir(), "umask")
	if err := e.Run(context.Background(), &execute.Command{Script: execute.Script("", nil, "sudo -n sh -c "+vocab.Quote("umask > "+probe))}); err != nil {
		t.Fatalf("read the umask under sudo over SSH: %v", err)
	}
	b, err := os.ReadFile(probe)
	must(t, err)
	umask, err := strconv.ParseUint(strings.TrimSpace(string(b)), 8, 32)
	must(t, err)
	return &target{ops: e, umask: uint32(umask), sshd: s}
}

// dial connects to s as zaptest (PATH must find s.Bin's ssh first).
func dial(t *testing.T, s *scripttest.SSHD) *sshhost.Exec {
	t.Helper()
	c, err := sshhost.Dial(context.Background(), sshhost.Target{Host: "127.0.0.1", Port: s.Port, User: scripttest.TestAccount, Identity: s.Identity}, t.TempDir())
	if err != nil {
		t.Fatalf("connect to the loopback sshd: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c.Exec()
}

// forEachTarget runs f as a subtest on each target, each with a world of
// its own: "local", and "ssh" over a private loopback sshd (skipped, saying
// why, where one can't run).
func forEachTarget(t *testing.T, f func(t *testing.T, w *world, tg *target)) {
	t.Run("local", func(t *testing.T) {
		w := setup(t)
		f(t, w, local())
	})
	t.Run("ssh", func(t *testing.T) {
		w := setup(t)
		s := scripttest.StartSSHD(t)
		f(t, w, sshTarget(t, s))
	})
}

func within(t *testing.T, d time.Duration, what string, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("%s still waits after %s", what, d)
		return nil
	}
}
