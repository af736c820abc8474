package ops_test

// What a writer killed mid-write leaves in the directory it stages in is
// removed by the next run of a script that stages there (lib/stage.sh), and
// a live writer's staged file never is: with flock (.zap.lk. names, locked)
// and without (.zap.p names, naming the writer's shell), under dash, bash
// and BusyBox's ash.

import (
	"bytes"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
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

// deadPID is a PID no process has: above the kernel's PID_MAX_LIMIT.
const deadPID = 9999999

// reachable returns a new directory that every account may enter and read
// but not write: for tools and files another account runs and reads.
func reachable(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// toolFarm returns a directory holding a link to every command on path
// (the first of each name), less those named in without: a PATH with no
// flock, or no sudo. Each link leads straight to what the command's own
// does (through none in a directory only root may enter, as the BusyBox
// applets' is), so another account runs them too.
func toolFarm(t *testing.T, path string, without ...string) string {
	t.Helper()
	dir := reachable(t)
	for _, d := range filepath.SplitList(path) {
		entries, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if slices.Contains(without, e.Name()) {
				continue
			}
			target, err := filepath.EvalSymlinks(filepath.Join(d, e.Name()))
			if err != nil {
				continue
			}
			err = os.Symlink(target, filepath.Join(dir, e.Name()))
			if err != nil && !errors.Is(err, os.ErrExist) {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// lookIn is the path of tool in the first directory of path (a PATH list)
// that holds it.
func lookIn(t *testing.T, path, tool string) string {
	t.Helper()
	for _, d := range filepath.SplitList(path) {
		if fi, err := os.Stat(filepath.Join(d, tool)); err == nil && !fi.IsDir() {
			return filepath.Join(d, tool)
		}
	}
	t.Fatalf("no %s on %s", tool, path)
	return ""
}

// flockPath is the PATH a script is tried with under sh, the commands
// named in without left out: with flock ("flock", sh's own; "" where this
// machine has none), or without ("no flock", every command on sh's but
// flock).
func flockPath(t *testing.T, sh userShell, flock bool, without ...string) string {
	t.Helper()
	if !flock {
		return toolFarm(t, sh.path, append([]string{"flock"}, without...)...)
	}
	dir := toolFarm(t, sh.path, without...)
	if _, err := os.Stat(filepath.Join(dir, "flock")); err != nil {
		t.Logf("%s: no flock on %s: the .zap.lk. staging isn't tried", sh.name, sh.path)
		return ""
	}
	return dir
}

// schemeName names a staging in a test's name.
func schemeName(flock bool) string {
	if flock {
		return "flock"
	}
	return "no flock"
}

// stalled is a run of a script stopped at its mv: its file staged, the
// rename not yet done.
type stalled struct {
	cmd   *exec.Cmd
	stall string
	shell int // the shell that staged the file (the mv's parent)
	mv    int // the stopped mv
	done  chan error
	out   *bytes.Buffer
}

// stallAtMv starts run(PATH) with a mv first on PATH that stops until it is
// let go, and returns once the script runs it. That mv writes down its PID
// and its parent's, the shell that staged.
func stallAtMv(t *testing.T, path string, run func(path string) *exec.Cmd) *stalled {
	t.Helper()
	w := &stalled{stall: reachable(t), done: make(chan error, 1), out: &bytes.Buffer{}}
	if err := os.Chmod(w.stall, 0o777); err != nil { // the account a run acts as writes here
		t.Fatal(err)
	}
	q := func(name string) string { return vocab.Quote(filepath.Join(w.stall, name)) }
	wrapper := fmt.Sprintf("#!/bin/sh\necho \"$$ $PPID\" >%s\n: >%s\nwhile [ ! -e %s ]; do %s 0.02; done\nexec %s \"$@\"\n",
		q("pids"), q("ready"), q("go"), vocab.Quote(lookIn(t, path, "sleep")), vocab.Quote(lookIn(t, path, "mv")))
	if err := os.WriteFile(filepath.Join(w.stall, "mv"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	w.cmd = run(w.stall + ":" + path)
	w.cmd.Stdout, w.cmd.Stderr = w.out, w.out
	w.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { w.done <- w.cmd.Wait() }()
	t.Cleanup(func() {
		syscall.Kill(-w.cmd.Process.Pid, syscall.SIGKILL)
		if w.shell != 0 {
			syscall.Kill(w.shell, syscall.SIGKILL)
			syscall.Kill(w.mv, syscall.SIGKILL)
		}
	})
	for deadline := time.Now().Add(time.Minute); ; {
		if _, err := os.Stat(filepath.Join(w.stall, "ready")); err == nil {
			break
		}
		select {
		case err := <-w.done:
			t.Fatalf("the writer ended before its mv: %v: %s", err, w.out)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the writer didn't reach its mv in a minute: %s", w.out)
		}
	}
	b, err := os.ReadFile(filepath.Join(w.stall, "pids"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fmt.Sscan(string(b), &w.mv, &w.shell); err != nil {
		t.Fatalf("the stopped mv wrote %q: %v", b, err)
	}
	return w
}

// kill kills the shell that staged and its mv (kill -9), as a killed run
// does. The shell's parent, this test or the script that started it, is
// alive to reap it: no zombie keeps its /proc entry. It returns once the
// run started ended.
func (w *stalled) kill() {
	syscall.Kill(w.shell, syscall.SIGKILL)
	syscall.Kill(w.mv, syscall.SIGKILL)
	<-w.done
}

// finish lets the mv go and returns how the run ended.
func (w *stalled) finish() error {
	if err := os.WriteFile(filepath.Join(w.stall, "go"), nil, 0o644); err != nil {
		return err
	}
	if err := <-w.done; err != nil {
		return fmt.Errorf("%v: %s", err, w.out)
	}
	return nil
}

// staged are the names in dir a staging gives (.zap.*), sorted.
func staged(t *testing.T, dir string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, ".zap.*"))
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range names {
		names[i] = filepath.Base(n)
	}
	slices.Sort(names)
	return names
}

// added are the names in after that aren't in before.
func added(before, after []string) []string {
	var out []string
	for _, n := range after {
		if !slices.Contains(before, n) {
			out = append(out, n)
		}
	}
	return out
}

// readText is the text of the file at path.
func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// runToEnd runs cmd and fails the test unless it exits 0.
func runToEnd(t *testing.T, what string, cmd *exec.Cmd) {
	t.Helper()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v: %s", what, err, out)
	}
}

// shellCmd is a run of text under sh as `SHELL -s -- ARGS` (as an
// operation runs), the text then input on stdin, with PATH path.
func shellCmd(sh userShell, path, text, input string, args ...string) *exec.Cmd {
	cmd := exec.Command(sh.argv[0], append(append(append([]string(nil), sh.argv[1:]...), "-s", "--"), args...)...)
	cmd.Stdin = strings.NewReader(text + input)
	cmd.Env = []string{"LC_ALL=C", "PATH=" + path}
	cmd.Dir = "/"
	return cmd
}

// scriptText is the named operation's script with each old string
// replaced by its new one (a directory the script names as a constant, such
// as /etc, by one of the test's own).
func scriptText(t *testing.T, name plan.OpName, oldnew ...string) string {
	t.Helper()
	s, ok := ops.Script(name)
	if !ok {
		t.Fatalf("no %s script", name)
	}
	for i := 0; i < len(oldnew); i += 2 {
		if !strings.Contains(s.Text, oldnew[i]) {
			t.Fatalf("%s doesn't name %s", name, oldnew[i])
		}
	}
	return strings.NewReplacer(oldnew...).Replace(s.Text)
}

// stager is one script that stages a file, set up fresh: dir is where it
// stages, run(PATH, i) a run of it (the i-th: each run changes something,
// so each stages and renames), and check what the runs that finished left.
type stager struct {
	dir   string
	run   func(path string, i int) *exec.Cmd
	check func(t *testing.T)
}

// stagers are the scripts that stage their own files through lib/stage.sh
// (put and link are internal/localops's), set up for sh; without names the
// commands that must not be on PATH.
var stagers = []struct {
	name    string
	without []string
	setup   func(t *testing.T, sh userShell) stager
}{
	{"ledger-mark", nil, func(t *testing.T, sh userShell) stager {
		state := filepath.Join(t.TempDir(), "zap")
		text := scriptText(t, "ledger-mark", "/var/lib/zap", state)
		return stager{
			dir: filepath.Join(state, "pending"),
			run: func(path string, i int) *exec.Cmd {
				return shellCmd(sh, path, text, "", "web"+strconv.Itoa(i), "restart")
			},
			check: func(t *testing.T) {
				for _, i := range []int{1, 2} {
					if got := readText(t, filepath.Join(state, "pending", "web"+strconv.Itoa(i))); got != "restart\n" {
						t.Errorf("marker %d: %q", i, got)
					}
				}
			},
		}
	}},
	{"swap-fstab", nil, func(t *testing.T, sh userShell) stager {
		etc := t.TempDir()
		if err := os.WriteFile(filepath.Join(etc, "fstab"), []byte("UUID=abcd / ext4 defaults 0 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		text := scriptText(t, "swap-fstab", "/etc", etc)
		return stager{
			dir: etc,
			run: func(path string, i int) *exec.Cmd {
				return shellCmd(sh, path, text, "", "/swap"+strconv.Itoa(i))
			},
			check: func(t *testing.T) {
				// The live writer renamed last: its table, read before the
				// next run's, holds its entry.
				if got := readText(t, filepath.Join(etc, "fstab")); got != "UUID=abcd / ext4 defaults 0 1\n/swap1 none swap sw 0 0\n" {
					t.Errorf("fstab %q", got)
				}
			},
		}
	}},
	{"user-sudo", nil, func(t *testing.T, sh userShell) stager {
		if _, err := exec.LookPath("visudo"); err != nil {
			t.Skip("needs visudo (user-sudo runs it)")
		}
		dir := t.TempDir()
		text := scriptText(t, "user-sudo", "/etc/sudoers.d", dir)
		return stager{
			dir: dir,
			run: func(path string, i int) *exec.Cmd {
				return shellCmd(sh, path, text, "", "zapstage", "nopasswd", "/bin/true "+strconv.Itoa(i))
			},
			check: func(t *testing.T) {
				if got := readText(t, filepath.Join(dir, "zapstage")); !strings.Contains(got, "NOPASSWD: /bin/true 1\n") {
					t.Errorf("the sudoers file %q, want the live writer's", got)
				}
			},
		}
	}},
	{"firewall-nft-apply", nil, func(t *testing.T, sh userShell) stager {
		base := t.TempDir()
		etc := filepath.Join(base, "etc")
		if err := os.Mkdir(etc, 0o755); err != nil {
			t.Fatal(err)
		}
		bin := fakeNft(t, base)
		text := scriptText(t, "firewall-nft-apply", "/etc", etc)
		return stager{
			dir: etc,
			run: func(path string, i int) *exec.Cmd {
				return shellCmd(sh, bin+":"+path, text, "", "deny", "allow", strconv.Itoa(22+i)+"/tcp")
			},
			check: func(t *testing.T) {
				if got := readText(t, filepath.Join(etc, "nftables.nft")); !strings.Contains(got, "tcp dport 23 accept") {
					t.Errorf("the ruleset, want the live writer's:\n%s", got)
				}
			},
		}
	}},
	// user-keys writes as the account: through setpriv, which keeps PATH
	// (sudo's secure_path would drop the stopping mv), so no sudo.
	{"user-keys", []string{"sudo"}, func(t *testing.T, sh userShell) stager {
		userNeeds(t)
		if _, err := exec.LookPath("setpriv"); err != nil {
			t.Skip("needs setpriv")
		}
		n := freshAccount(t)
		if code, stderr := userRun(t, sh, "user-account", n); code != 0 {
			t.Fatalf("user-account: exit %d: %s", code, stderr)
		}
		s, _ := ops.Script("user-keys")
		key := func(i int) string { return "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + strconv.Itoa(i) + " k" }
		return stager{
			dir: "/home/" + n + "/.ssh",
			run: func(path string, i int) *exec.Cmd {
				return shellCmd(sh, path, s.Text, "", n, "keys", key(i))
			},
			check: func(t *testing.T) {
				if got := readText(t, "/home/"+n+"/.ssh/authorized_keys"); got != key(1)+"\n" {
					t.Errorf("authorized_keys %q, want the live writer's", got)
				}
			},
		}
	}},
}

// TestStagedLeftoversRemoved stops a writer of each script once its file is
// staged (at its mv), alive, then kills a second one there (kill -9 of the
// shell that staged, and of its mv); the next run removes the killed
// writer's staged file and leaves the live one's, which then finishes.
// With flock the names are .zap.lk. (locked), without it .zap.p (naming
// the shell's PID).
func TestStagedLeftoversRemoved(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the scripts run as root (chown 0:0, the accounts user-keys writes as)")
	}
	// Each script is tried with flock and without, each time under the
	// next shell in turn: with three shells, each meets both stagings too.
	shells := opShells(t, "staging", os.Getenv("PATH"), userBusyboxTools)
	if len(shells) == 0 {
		t.Skip("no dash, bash or busybox here")
	}
	next := 0
	for _, s := range stagers {
		for _, flock := range []bool{true, false} {
			sh := shells[next%len(shells)]
			next++
			t.Run(s.name+"/"+sh.name+"/"+schemeName(flock), func(t *testing.T) {
				path := flockPath(t, sh, flock, s.without...)
				if path == "" {
					t.Skip("no flock here")
				}
				st := s.setup(t, sh)
				kind := ".zap.lk."
				if !flock {
					kind = ".zap.p"
				}
				live := stallAtMv(t, path, func(p string) *exec.Cmd { return st.run(p, 1) })
				alive := staged(t, st.dir)
				if len(alive) != 1 || !strings.HasPrefix(alive[0], kind) {
					t.Fatalf("the live writer has %v staged, want one %s name", alive, kind)
				}
				if kind == ".zap.p" && !strings.HasPrefix(alive[0], ".zap.p"+strconv.Itoa(live.shell)+".") {
					t.Fatalf("the live writer's staged name %s doesn't name its shell, %d", alive[0], live.shell)
				}
				// The killed writer cleans first, and leaves the live
				// writer's file.
				killed := stallAtMv(t, path, func(p string) *exec.Cmd { return st.run(p, 0) })
				dead := added(alive, staged(t, st.dir))
				killed.kill()
				if got := staged(t, st.dir); len(dead) != 1 || !strings.HasPrefix(dead[0], kind) || len(got) != 2 {
					t.Fatalf("the killed writer staged %v, want one %s name beside the live writer's %v; left: %v", dead, kind, alive, got)
				}

				runToEnd(t, "the next run", st.run(path, 2))
				if got := staged(t, st.dir); !slices.Equal(got, alive) {
					t.Fatalf("after the next run %v are left, want the live writer's %v (the killed writer's: %v, its shell %d)", got, alive, dead, killed.shell)
				}
				if err := live.finish(); err != nil {
					t.Fatalf("the live writer: %v", err)
				}
				if got := staged(t, st.dir); len(got) != 0 {
					t.Fatalf("%v left once every writer is done", got)
				}
				st.check(t)
			})
		}
	}
}

// putCmd is a run of the put script writing content at path under sh with
// PATH path; as, when set, is the setpriv argv it runs behind.
func putCmd(sh userShell, path, at, content string, as ...string) *exec.Cmd {
	s, _ := ops.Script(plan.OpPut)
	sum := sha512.Sum512([]byte(content))
	p := &execute.Put{Path: at, Content: []byte(content), SHA512: hex.EncodeToString(sum[:])}
	argv, hidden := asroot.PutArgs(p, "")
	cmd := shellCmd(sh, path, "", "", argv...)
	cmd.Stdin = bytes.NewReader(ops.PutScriptInput(s.Text, p.Content, hidden...))
	if len(as) > 0 {
		cmd.Args = append(append(append([]string(nil), as...), "--"), cmd.Args...)
		cmd.Path = as[0]
	}
	return cmd
}

// TestRootsLeftoverInAnothersDirectory: root's put into a directory of
// another account's stages a .zap.p name naming uid 0 even with flock, as a
// cleaner there opens nothing. A killed one's file is left by the
// account's own write, and removed by root's next write there, which
// leaves a live root writer's.
func TestRootsLeftoverInAnothersDirectory(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to write as root and as another account")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("needs setpriv, to write as another account")
	}
	const uid = 65534
	as := []string{setpriv, "--reuid=" + strconv.Itoa(uid), "--regid=" + strconv.Itoa(uid), "--clear-groups"}
	for i, sh := range opShells(t, "put", os.Getenv("PATH"), []string{"base64", "chmod", "chown", "mkdir", "mktemp", "mv", "rm", "sha512sum", "stat"}) {
		flock := i%2 == 0
		t.Run(sh.name+"/"+schemeName(flock), func(t *testing.T) {
			path := flockPath(t, sh, flock)
			if path == "" {
				t.Skip("no flock here")
			}
			dir := filepath.Join(reachable(t), "home")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(dir, uid, uid); err != nil {
				t.Fatal(err)
			}
			live := stallAtMv(t, path, func(p string) *exec.Cmd { return putCmd(sh, p, dir+"/b", "live\n") })
			alive := staged(t, dir)
			if len(alive) != 1 || !strings.HasPrefix(alive[0], ".zap.p"+strconv.Itoa(live.shell)+".0.") {
				t.Fatalf("root's live writer has %v staged, want one .zap.p%d.0. name", alive, live.shell)
			}
			killed := stallAtMv(t, path, func(p string) *exec.Cmd { return putCmd(sh, p, dir+"/a", "killed\n") })
			dead := added(alive, staged(t, dir))
			killed.kill()
			if len(dead) != 1 || !strings.HasPrefix(dead[0], ".zap.p"+strconv.Itoa(killed.shell)+".0.") {
				t.Fatalf("root's killed writer staged %v, want one .zap.p%d.0. name", dead, killed.shell)
			}
			both := slices.Sorted(slices.Values(append(append([]string(nil), dead...), alive...)))
			if got := staged(t, dir); !slices.Equal(got, both) {
				t.Fatalf("after root's killed writer %v are left, want %v", got, both)
			}

			runToEnd(t, "the account's put", putCmd(sh, path, dir+"/c", "account\n", as...))
			if got := staged(t, dir); !slices.Equal(got, both) {
				t.Fatalf("after the account's write %v are left, want root's %v", got, both)
			}
			runToEnd(t, "root's next put", putCmd(sh, path, dir+"/d", "root\n"))
			if got := staged(t, dir); !slices.Equal(got, alive) {
				t.Fatalf("after root's next write %v are left, want the live writer's %v", got, alive)
			}
			if err := live.finish(); err != nil {
				t.Fatalf("the live writer: %v", err)
			}
			if got := staged(t, dir); len(got) != 0 {
				t.Fatalf("%v left once every writer is done", got)
			}
			for name, want := range map[string]string{"b": "live\n", "c": "account\n", "d": "root\n"} {
				if got := readText(t, filepath.Join(dir, name)); got != want {
					t.Errorf("%s holds %q, want %q", name, got, want)
				}
			}
		})
	}
}

// procIDs are this machine's PID namespace inode and boot_id prefix, as a
// staged .zap.p name spells them.
func procIDs(t *testing.T) (ns, boot string) {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat("/proc/self/ns/pid", &st); err != nil {
		t.Skipf("no PID namespace to read here: %v", err)
	}
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		t.Skipf("no boot_id here: %v", err)
	}
	return strconv.FormatUint(st.Ino, 10), string(b[:8])
}

// TestStagedLeftoverGuards plants what a cleaner must leave beside what it
// must remove, and runs swap-fstab (whose directory a test names) once.
// Removed: a .zap.p file of a dead PID, of this uid, PID namespace and
// boot, with its .ln link, and, with flock, a .zap.lk. file no one locks.
// Kept: another uid's, another namespace's or boot's, a live PID's, a
// link, a directory or a file with two names at such a name, a name not
// as staging spells it, a .zap.lk. file this test holds locked, and,
// in a directory its group may write, everything.
func TestStagedLeftoverGuards(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("swap-fstab runs as root (chown 0:0)")
	}
	ns, boot := procIDs(t)
	other := "0" + boot[1:]
	if boot[0] == '0' {
		other = "1" + boot[1:]
	}
	p := func(pid, uid int, ns, boot, rest string) string {
		return fmt.Sprintf(".zap.p%d.%d.%s.%s.%s", pid, uid, ns, boot, rest)
	}
	for i, sh := range swapShells(t) {
		flock := i%2 == 0
		t.Run(sh.name+"/"+schemeName(flock), func(t *testing.T) {
			path := flockPath(t, sh, flock)
			if path == "" {
				t.Skip("no flock here")
			}
			for _, mode := range []os.FileMode{0o755, 0o775} {
				etc := filepath.Join(t.TempDir(), "etc")
				if err := os.Mkdir(etc, mode); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(etc, mode); err != nil {
					t.Fatal(err)
				}
				file := func(name string) {
					if err := os.WriteFile(filepath.Join(etc, name), []byte("x"), 0o600); err != nil {
						t.Fatal(err)
					}
				}
				gone := []string{p(deadPID, 0, ns, boot, "Aa0Bb1"), p(deadPID, 0, ns, boot, "Aa0Bb1") + ".ln"}
				file(gone[0])
				if err := os.Symlink("nowhere", filepath.Join(etc, gone[1])); err != nil {
					t.Fatal(err)
				}
				kept := []string{
					p(deadPID, 1000, ns, boot, "uid000"),
					p(deadPID, 0, ns+"1", boot, "ns0000"),
					p(deadPID, 0, ns, other, "boot00"),
					p(os.Getpid(), 0, ns, boot, "live00"),
					p(deadPID, 0, ns, boot, "short"),
					".zap.p0" + strconv.Itoa(deadPID) + ".0." + ns + "." + boot + ".zero00",
					".zap." + strconv.Itoa(deadPID) + ".0." + ns + "." + boot + ".nop000",
				}
				for _, n := range kept {
					file(n)
				}
				link, dir, two := p(deadPID, 0, ns, boot, "link00"), p(deadPID, 0, ns, boot, "dir000"), p(deadPID, 0, ns, boot, "two000")
				if err := os.Symlink(filepath.Join(etc, kept[0]), filepath.Join(etc, link)); err != nil {
					t.Fatal(err)
				}
				if err := os.Mkdir(filepath.Join(etc, dir), 0o700); err != nil {
					t.Fatal(err)
				}
				file(two)
				if err := os.Link(filepath.Join(etc, two), filepath.Join(etc, ".zap.x.two")); err != nil {
					t.Fatal(err)
				}
				kept = append(kept, link, dir, two, ".zap.x.two")
				if flock {
					unlocked, locked := ".zap.lk.Unl0ck", ".zap.lk.L0cked"
					file(unlocked)
					file(locked)
					f, err := os.Open(filepath.Join(etc, locked))
					if err != nil {
						t.Fatal(err)
					}
					defer f.Close()
					if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
						t.Fatal(err)
					}
					gone = append(gone, unlocked)
					kept = append(kept, locked)
				}
				if mode&0o020 != 0 {
					kept, gone = append(kept, gone...), nil
				}
				if err := os.WriteFile(filepath.Join(etc, "fstab"), nil, 0o644); err != nil {
					t.Fatal(err)
				}
				runToEnd(t, "swap-fstab", shellCmd(sh, path, scriptText(t, "swap-fstab", "/etc", etc), "", "/swapfile"))
				if got, want := staged(t, etc), slices.Sorted(slices.Values(kept)); !slices.Equal(got, want) {
					t.Errorf("directory mode %o: after a run %v are left, want %v (removed: %v)", mode, got, want, gone)
				}
			}
		})
	}
}

// TestStagedLeftoverPIDNamespace: a cleaner in a PID namespace of its own
// trusts /proc only when it is that namespace's (unshare --mount-proc):
// where /proc is the parent namespace's, a dead writer's file named for
// its namespace stays.
func TestStagedLeftoverPIDNamespace(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, for a PID namespace")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("needs unshare (util-linux) for a PID namespace")
	}
	if out, err := exec.Command("unshare", "-p", "-f", "-m", "--mount-proc", "true").CombinedOutput(); err != nil {
		t.Skipf("a PID namespace with its own /proc can't be made here: %v: %s", err, bytes.TrimSpace(out))
	}
	sh := swapShells(t)[0]
	for _, c := range []struct {
		name   string
		argv   []string
		remove bool
	}{
		{"its own /proc", []string{"unshare", "-p", "-f", "-m", "--mount-proc"}, true},
		{"the parent's /proc", []string{"unshare", "-p", "-f"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			etc := t.TempDir()
			if err := os.WriteFile(filepath.Join(etc, "fstab"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			// In the namespace, before the script: a dead writer's file
			// named for that namespace.
			plant := fmt.Sprintf(`cd %s && ns=$(stat -L -c %%i /proc/self/ns/pid) && read -r b </proc/sys/kernel/random/boot_id && b=${b%%%%-*} && : >".zap.p%d.0.$ns.$b.Plant0" && exec "$@"`,
				vocab.Quote(etc), deadPID)
			argv := append(append(append([]string(nil), c.argv...), "sh", "-c", plant, "sh"), sh.argv...)
			cmd := exec.Command(argv[0], append(argv[1:], "-s", "--", "/swapfile")...)
			cmd.Stdin = strings.NewReader(scriptText(t, "swap-fstab", "/etc", etc))
			cmd.Env = []string{"LC_ALL=C", "PATH=" + sh.path}
			runToEnd(t, "swap-fstab in a PID namespace", cmd)
			got := staged(t, etc)
			if c.remove && len(got) != 0 {
				t.Errorf("%v left: the dead writer's file wasn't removed", got)
			}
			if !c.remove && (len(got) != 1 || !strings.HasSuffix(got[0], ".Plant0")) {
				t.Errorf("%v left, want the planted file kept", got)
			}
		})
	}
}

// TestStagedNameTakenBeforeItsLock: a cleaner in the same directory may take
// a writer's .zap.lk. file after mktemp made it and before the writer locked
// it (it looks like a killed writer's then). The writer stages another
// rather than failing: here a wrapped mktemp removes the first file it
// makes (taken before the open), and a wrapped stat removes the staged name
// when first asked about fd 3 (taken after the open). Each put still
// writes its file, and nothing is left staged.
func TestStagedNameTakenBeforeItsLock(t *testing.T) {
	for _, sh := range opShells(t, "put", os.Getenv("PATH"), []string{"base64", "chmod", "chown", "mkdir", "mktemp", "mv", "rm", "sha512sum", "stat"}) {
		for _, tool := range []string{"mktemp", "stat"} {
			t.Run(sh.name+"/"+tool, func(t *testing.T) {
				path := flockPath(t, sh, true, tool)
				if path == "" {
					t.Skip("no flock here")
				}
				real := lookIn(t, sh.path, tool)
				mark := filepath.Join(t.TempDir(), "taken")
				var wrap string
				if tool == "mktemp" {
					wrap = "#!/bin/sh\nn=$(" + real + " \"$@\") || exit\ncase $n in *.zap.lk.*) [ -e " + mark + " ] || { rm -f -- \"$n\"; : > " + mark + "; } ;; esac\nprintf '%s\\n' \"$n\"\n"
				} else {
					wrap = "#!/bin/sh\nfor a; do\n\tif [ \"$a\" = /proc/self/fd/3 ] && [ ! -e " + mark + " ]; then rm -f ./.zap.lk.??????; : > " + mark + "; fi\ndone\nexec " + real + " \"$@\"\n"
				}
				if err := os.WriteFile(filepath.Join(path, tool), []byte(wrap), 0o755); err != nil {
					t.Fatal(err)
				}
				dir := reachable(t)
				runToEnd(t, "the put", putCmd(sh, path, dir+"/a", "kept\n"))
				if _, err := os.Stat(mark); err != nil {
					t.Fatalf("the wrapped %s never took the staged name: %v", tool, err)
				}
				if got := readText(t, filepath.Join(dir, "a")); got != "kept\n" {
					t.Errorf("a holds %q, want %q", got, "kept\n")
				}
				if got := staged(t, dir); len(got) != 0 {
					t.Errorf("%v left staged", got)
				}
			})
		}
	}
}
