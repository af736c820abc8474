package writetest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/sshhost"
	"github.com/zap-go/zap/pkg/events"
)

var ctx = context.Background()

func check(text string) *execute.Command {
	return &execute.Command{Script: execute.Script("", nil, text)}
}

func TestSymlinkAtPathIsReplacedNotFollowed(t *testing.T) {
	forEachTarget(t, func(t *testing.T, w *world, tg *target) {
		f, g := filepath.Join(w.att, "f"), filepath.Join(w.att, "g")
		w.as("ln", "-s", w.secret, f)
		w.as("ln", "-s", w.pwned, g)
		// A validated write refuses the link: it can't be put back.
		p := put(f, []byte("new\n"), "0644")
		p.Validate = check("true")
		if err := tg.Put(ctx, p); err == nil {
			t.Fatal("a validated write over a link succeeded")
		}
		w.intact()
		for _, path := range []string{f, g} {
			if err := tg.Put(ctx, put(path, []byte("new\n"), "")); err != nil {
				t.Fatal(err)
			}
			// The link kept nothing: the file is root's, at the writer's mode.
			wantFile(t, path, []byte("new\n"), tg.writers(), 0, 0)
		}
		w.intact()
	})
}

// startSwapper starts the attacker that swaps links in at f (a name in
// w.att) and waits until its loop has begun; the returned func stops it.
func startSwapper(t *testing.T, w *world, f string) func() {
	t.Helper()
	attacker := w.cmd(w.bin, "-test.run=^$", w.att, filepath.Base(f), w.secret+":"+w.pwned)
	attacker.Env = append(attacker.Env, helperEnv+"=swap")
	var out bytes.Buffer
	attacker.Stderr = &out
	must(t, attacker.Start())
	var once sync.Once
	stop := func() {
		once.Do(func() {
			attacker.Process.Kill()
			attacker.Wait()
		})
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		if fi, err := os.Lstat(f); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			return stop
		}
		if time.Now().After(deadline) {
			stop()
			t.Fatalf("the attacker didn't start: %s", out.String())
		}
	}
}

func TestLinksSwappedInDuring200Writes(t *testing.T) {
	forEachTarget(t, func(t *testing.T, w *world, tg *target) {
		f := filepath.Join(w.att, "f")
		stop := startSwapper(t, w, f)
		defer stop()
		ok, failed := 0, map[events.Code]int{}
		for i := range 200 {
			p := put(f, []byte(fmt.Sprintf("write %d\n", i)), "0644")
			if i%2 == 1 {
				p.Owner, p.Group, p.Mode = "root", "root", "0640"
			}
			if err := tg.Put(ctx, p); err != nil {
				code, _, _ := execute.Classify(err)
				failed[code]++
				continue
			}
			ok++
		}
		stop()
		t.Logf("200 writes raced: %d installed, failed %v", ok, failed)
		// Each write the swapper beat is refused as a conflict, never
		// another failure; and some were, or the race never happened.
		for code, n := range failed {
			if code != events.Conflict {
				t.Errorf("%d write(s) failed with %s, want every refusal a %s", n, code, events.Conflict)
			}
		}
		if failed[events.Conflict] == 0 {
			t.Errorf("none of the 200 writes met a swapped-in link: the swapper never raced them")
		}
		w.intact()
	})
}

func TestHardLinkToRootsFileAtPath(t *testing.T) {
	forEachTarget(t, func(t *testing.T, w *world, tg *target) {
		f := filepath.Join(w.att, "f")
		// fs.protected_hardlinks keeps zaptest from linking root's file; a
		// host without it lets it, so root makes the link zaptest would.
		must(t, os.Link(w.secret, f))
		if err := tg.Put(ctx, put(f, []byte("new\n"), "")); err != nil {
			t.Fatal(err)
		}
		// The hard-linked file kept nothing: not root's secret's mode 600.
		wantFile(t, f, []byte("new\n"), tg.writers(), 0, 0)
		if st := lstat(t, w.secret); st.Nlink != 1 {
			t.Fatalf("the secret has %d links, want 1", st.Nlink)
		}
		w.intact()
	})
}

func TestFifoAtPath(t *testing.T) {
	forEachTarget(t, func(t *testing.T, w *world, tg *target) {
		f := filepath.Join(w.att, "f")
		w.as("mkfifo", f)
		// A validated write refuses the fifo without waiting on it.
		p := put(f, []byte("new\n"), "0644")
		p.Validate = check("true")
		err := within(t, 5*time.Second, "a validated write over a fifo", func() error { return tg.Put(ctx, p) })
		if code, _, _ := execute.Classify(err); code != events.Conflict {
			t.Fatalf("a validated write over a fifo: %v, want a conflict", err)
		}
		if st := lstat(t, f); st.Mode&unix.S_IFMT != unix.S_IFIFO {
			t.Fatalf("the fifo was replaced by a refused write")
		}
		// A plain write replaces it, never opening it.
		err = within(t, 5*time.Second, "a write over a fifo", func() error { return tg.Put(ctx, put(f, []byte("new\n"), "")) })
		must(t, err)
		wantFile(t, f, []byte("new\n"), tg.writers(), 0, 0)
		w.intact()
	})
}

func TestPlanted0666FileInAttackersDirectory(t *testing.T) {
	forEachTarget(t, func(t *testing.T, w *world, tg *target) {
		f := filepath.Join(w.att, "f")
		w.as("sh", "-c", "umask 0; echo planted > "+f)
		// The attacker holds the planted file open, to read what root writes.
		held, err := os.Open(f)
		must(t, err)
		defer held.Close()
		planted := lstat(t, f).Ino
		if err := tg.Put(ctx, &execute.Put{Path: f, Content: []byte("private\n"), SHA512: put(f, []byte("private\n"), "").SHA512, Mode: "0600", Owner: "root", Group: "root"}); err != nil {
			t.Fatal(err)
		}
		wantFile(t, f, []byte("private\n"), 0o600, 0, 0)
		if lstat(t, f).Ino == planted {
			t.Fatal("the content was written into the planted file")
		}
		var b bytes.Buffer
		b.ReadFrom(held)
		if b.String() != "planted\n" {
			t.Fatalf("the planted file now holds %q", b.String())
		}
		if w.can("cat", f) {
			t.Fatal("zaptest can read a file declared 0600 root:root")
		}
		// A new file in the attacker's directory takes the directory's owner,
		// as do the directories made on the way to it.
		g := filepath.Join(w.att, "sub", "g")
		must(t, tg.Put(ctx, put(g, []byte("x\n"), "")))
		wantFile(t, g, []byte("x\n"), tg.writers(), w.uid, w.gid)
		if st := lstat(t, filepath.Dir(g)); int(st.Uid) != w.uid || int(st.Gid) != w.gid {
			t.Fatalf("the directory made in zaptest's is %d:%d, want zaptest's", st.Uid, st.Gid)
		}
		w.intact()
	})
}

func TestAttackersDirectoryUnderTmp(t *testing.T) {
	forEachTarget(t, func(t *testing.T, w *world, tg *target) {
		name := fmt.Sprintf("zap-writetest-%d", os.Getpid())
		d, l := filepath.Join("/tmp", name), filepath.Join("/tmp", name+"-link")
		t.Cleanup(func() { os.RemoveAll(d); os.Remove(l) })
		w.as("sh", "-c", "umask 0 && mkdir "+d+" && echo planted > "+d+"/f && ln -s "+w.att+" "+l+" && echo planted > "+w.att+"/f3")
		// A planted file below /tmp keeps nothing: root's, at the writer's mode.
		must(t, tg.Put(ctx, put(d+"/f", []byte("new\n"), "")))
		wantFile(t, d+"/f", []byte("new\n"), tg.writers(), 0, 0)
		// Directories made below it aren't given to the account that made it.
		must(t, tg.Put(ctx, put(d+"/a/b/f", []byte("new\n"), "")))
		wantFile(t, d+"/a/b/f", []byte("new\n"), tg.writers(), 0, 0)
		for _, dir := range []string{d + "/a", d + "/a/b"} {
			if st := lstat(t, dir); st.Uid != 0 || st.Gid != 0 {
				t.Fatalf("%s made below /tmp is %d:%d, want root's", dir, st.Uid, st.Gid)
			}
		}
		// Through the attacker's link in /tmp to its own directory: nothing is
		// kept either, neither a new file's directory owner nor a planted file's.
		must(t, tg.Put(ctx, put(l+"/f2", []byte("new\n"), "")))
		wantFile(t, w.att+"/f2", []byte("new\n"), tg.writers(), 0, 0)
		must(t, tg.Put(ctx, put(l+"/f3", []byte("new\n"), "")))
		wantFile(t, w.att+"/f3", []byte("new\n"), tg.writers(), 0, 0)
		must(t, tg.Dir(ctx, &execute.Dir{Path: l + "/made"}))
		if st := lstat(t, w.att+"/made"); st.Uid != 0 {
			t.Fatalf("a directory made through /tmp is %d's, want root's", st.Uid)
		}
		w.intact()
	})
}

func TestFileWithAccessList(t *testing.T) {
	forEachTarget(t, func(t *testing.T, w *world, tg *target) {
		if _, err := exec.LookPath("setfacl"); err != nil {
			t.Skip("skipped: setfacl is not installed (apt-get install acl)")
		}
		dir := filepath.Join(w.base, "etc")
		must(t, os.Mkdir(dir, 0o755))
		f := filepath.Join(dir, "f")
		must(t, os.WriteFile(f, []byte("old\n"), 0o600))
		if out, err := exec.Command("setfacl", "-m", "u:zaptest:rw", f).CombinedOutput(); err != nil {
			t.Skipf("skipped: this filesystem takes no access list: %s", out)
		}
		// The mode bits show the list's mask: keeping them is refused.
		err := tg.Put(ctx, put(f, []byte("new\n"), ""))
		if code, _, _ := execute.Classify(err); code != events.Permanent || !strings.Contains(fmt.Sprint(err), "declare mode") {
			t.Fatalf("a write keeping the mode of a file with an access list: %v, want refused", err)
		}
		wantFile(t, f, []byte("old\n"), 0o660, 0, 0)
		// Declared, the mode is the file's, and the list is gone with the old file.
		must(t, tg.Put(ctx, put(f, []byte("new\n"), "0600")))
		wantFile(t, f, []byte("new\n"), 0o600, 0, 0)
		if w.can("cat", f) {
			t.Fatal("zaptest can read the new file")
		}
		// A default access list on the directory doesn't widen the staged file
		// nor the declared mode.
		must(t, exec.Command("setfacl", "-d", "-m", "u:zaptest:rw", dir).Run())
		must(t, tg.Put(ctx, put(f, []byte("newer\n"), "0600")))
		if w.can("cat", f) {
			t.Fatal("zaptest can read a file declared 0600 in a directory with a default access list")
		}
		w.intact()
	})
}

func TestFailedValidateRestoresByteForByte(t *testing.T) {
	forEachTarget(t, func(t *testing.T, w *world, tg *target) {
		f := filepath.Join(w.att, "f")
		old := make([]byte, 70000)
		rand.Read(old)
		old[0], old[len(old)-1] = 0, '\n'
		must(t, os.WriteFile(f, old, 0o600))
		must(t, os.Chmod(f, 0o640))
		must(t, os.Chown(f, w.uid, w.gid))
		p := put(f, []byte("rejected\n"), "0644")
		p.Owner = "root"
		p.Validate = check("grep -q good " + f + " || exit 3")
		err := tg.Put(ctx, p)
		var ee *execute.ExitError
		if !errors.As(err, &ee) || ee.Status != 3 {
			t.Fatalf("the write with a failing check: %v, want its exit 3", err)
		}
		wantFile(t, f, old, 0o640, w.uid, w.gid)
		if left, _ := filepath.Glob(filepath.Join(w.att, ".zap.*")); len(left) != 0 {
			t.Fatalf("left behind: %v", left)
		}
		w.intact()
	})
}

func TestKilledAt100RandomMoments(t *testing.T) {
	forEachTarget(t, func(t *testing.T, w *world, tg *target) {
		dir := filepath.Join(w.base, "kill")
		must(t, os.Mkdir(dir, 0o755))
		f := filepath.Join(dir, "f")
		contents := [2][]byte{bytes.Repeat([]byte("A"), 1<<20), bytes.Repeat([]byte("B"), 1<<20)}
		srcs := [2]string{filepath.Join(w.base, "a"), filepath.Join(w.base, "b")}
		for i := range srcs {
			must(t, os.WriteFile(srcs[i], contents[i], 0o600))
		}
		must(t, os.WriteFile(f, contents[0], 0o644))
		leftovers, installed := 0, 0
		// landed counts the kills that ended a write before it finished,
		// landedBeforeInstall those that left the file as it was.
		landed, landedBeforeInstall := 0, 0
		writer := func(i int) (*exec.Cmd, *bufio.Reader) {
			cmd := exec.Command(w.bin, "-test.run=^$", f, srcs[i%2])
			cmd.Env = append(os.Environ(), helperEnv+"=put", noExitSleep)
			out, err := cmd.StdoutPipe()
			must(t, err)
			must(t, cmd.Start())
			r := bufio.NewReader(out)
			if line, err := r.ReadString('\n'); line != "ready\n" {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("the writer didn't get ready: %q %v", line, err)
			}
			return cmd, r
		}
		// start begins write i: over SSH in this process, the write's
		// processes on the target killed at once (the session's shell,
		// sudo, the script and its tools); locally a writer process of its
		// own.
		var e *sshhost.Exec
		if tg.sshd != nil {
			// One connection: only what its sessions run is killed.
			e = dial(t, tg.sshd)
		}
		start := func(i int) (kill func(), wait func() (time.Duration, error)) {
			if e != nil {
				done := make(chan error, 1)
				began := time.Now()
				go func() { done <- e.Put(ctx, put(f, contents[i%2], "")) }()
				return tg.sshd.KillCommands, func() (time.Duration, error) { err := <-done; return time.Since(began), err }
			}
			cmd, r := writer(i)
			wait = func() (time.Duration, error) {
				rest, _ := io.ReadAll(r)
				if err := cmd.Wait(); err != nil {
					return 0, err
				}
				ns, err := strconv.ParseInt(strings.TrimSpace(string(rest)), 10, 64)
				return time.Duration(ns), err
			}
			return func() { cmd.Process.Signal(syscall.SIGKILL) }, wait
		}
		// How long a whole write takes, to kill within it (over SSH, after
		// the run's one sudo -n true).
		_, wait := start(1)
		if _, err := wait(); err != nil {
			t.Fatalf("the writer: %v", err)
		}
		_, wait = start(1)
		whole, err := wait()
		if err != nil {
			t.Fatalf("the writer: %v", err)
		}
		current := contents[1]
		left := map[string]bool{}
		for i := range 100 {
			kill, wait := start(i + 2)
			time.Sleep(time.Duration(mrand.Int64N(int64(whole)*5/4 + 1)))
			kill()
			_, werr := wait()
			got, err := os.ReadFile(f)
			must(t, err)
			if werr != nil {
				// The kill ended the write before it finished.
				landed++
				if bytes.Equal(got, current) {
					landedBeforeInstall++
				}
			}
			if !bytes.Equal(got, contents[0]) && !bytes.Equal(got, contents[1]) {
				t.Fatalf("after kill %d the file holds %d bytes, neither whole content", i, len(got))
			}
			names, _ := os.ReadDir(dir)
			for _, n := range names {
				if n.Name() != "f" && !strings.HasPrefix(n.Name(), ".zap.") {
					t.Fatalf("after kill %d, %s is left beside the file", i, n.Name())
				}
				if n.Name() != "f" && !left[n.Name()] {
					left[n.Name()] = true
					leftovers++
				}
			}
			if !bytes.Equal(got, current) {
				installed++
				current = got
			}
		}
		t.Logf("a whole write takes %s; of 100 writers killed at random moments within 1.25 times that, %d were killed mid-write (%d before the file was replaced), %d left a .zap.* file and %d had installed", whole, landed, landedBeforeInstall, leftovers, installed)
		// The moments fall within 1.25 writes, so most kills land mid-write;
		// a run where few did never tested a killed write.
		if landed < 10 || landedBeforeInstall == 0 {
			t.Errorf("only %d of 100 kills landed mid-write (%d before the file was replaced), want at least 10 and 1", landed, landedBeforeInstall)
		}
		// What the killed writers left, the next write that got that far
		// removed; one whole write leaves nothing.
		_, wait = start(1)
		if _, err := wait(); err != nil {
			t.Fatalf("the writer after the kills: %v", err)
		}
		if names, _ := filepath.Glob(filepath.Join(dir, ".zap.*")); len(names) != 0 {
			t.Fatalf("after a whole write following the kills, %v are left beside the file", names)
		}
		w.intact()
	})
}

func TestDirAndLinkRefuseWhatIsAtTheName(t *testing.T) {
	forEachTarget(t, func(t *testing.T, w *world, tg *target) {
		root := filepath.Dir(w.secret)
		d := filepath.Join(w.att, "d")
		w.as("ln", "-s", root, d)
		// A link at a directory's name is refused; what it leads to is left.
		err := tg.Dir(ctx, &execute.Dir{Path: d, Mode: "0777", Owner: "zaptest"})
		if code, _, _ := execute.Classify(err); code != events.Conflict {
			t.Fatalf("a directory at a link: %v, want a conflict", err)
		}
		if st := lstat(t, root); st.Mode&0o7777 != 0o700 || st.Uid != 0 {
			t.Fatalf("root's directory is %o %d's after a refused dir", st.Mode&0o7777, st.Uid)
		}
		// A link's path holding a directory fails; a regular file is replaced.
		dir := filepath.Join(w.att, "dir")
		w.as("mkdir", dir)
		err = tg.Link(ctx, &execute.Link{Path: dir, Target: w.secret})
		if code, _, _ := execute.Classify(err); code != events.Conflict {
			t.Fatalf("a link over a directory: %v, want a conflict", err)
		}
		file := filepath.Join(w.att, "file")
		w.as("touch", file)
		must(t, tg.Link(ctx, &execute.Link{Path: file, Target: "elsewhere"}))
		if got, err := os.Readlink(file); err != nil || got != "elsewhere" {
			t.Fatalf("the file at a link's path is %q %v, want the link", got, err)
		}
		// Directories made in zaptest's directory are given its owner and
		// group, the declared mode and owner set on the last one itself.
		must(t, tg.Dir(ctx, &execute.Dir{Path: filepath.Join(w.att, "x/y"), Mode: "0750", Owner: "root"}))
		if st := lstat(t, filepath.Join(w.att, "x")); int(st.Uid) != w.uid || int(st.Gid) != w.gid {
			t.Fatalf("x is %d:%d, want zaptest's", st.Uid, st.Gid)
		}
		if st := lstat(t, filepath.Join(w.att, "x/y")); st.Uid != 0 || int(st.Gid) != w.gid || st.Mode&0o7777 != 0o750 {
			t.Fatalf("x/y is %o %d:%d, want 750 0:%d", st.Mode&0o7777, st.Uid, st.Gid, w.gid)
		}
		w.intact()
	})
}
