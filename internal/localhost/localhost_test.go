package localhost

import (
	"context"
	"crypto/sha512"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zap-go/zap/internal/batch"
	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/pkg/observation"
)

func answer(t *testing.T, h *Host, q detect.Query) detect.Answer {
	t.Helper()
	if q.Lane == "" {
		q.Lane = observation.LaneElevated
	}
	a, err := h.Answer(context.Background(), q.Lane, []detect.Query{q})
	if err != nil {
		t.Fatalf("answer %+v: %v", q, err)
	}
	return a[0]
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestPathReads(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	mustDo(t, os.WriteFile(p("file"), []byte("hello\n"), 0o640))
	mustDo(t, syscall.Chmod(p("file"), 0o4640))
	mustDo(t, os.Mkdir(p("dir"), 0o750))
	mustDo(t, os.Symlink("file", p("to-file")))
	mustDo(t, os.Symlink("dir", p("to-dir")))
	mustDo(t, os.Symlink("nowhere", p("dangling")))
	mustDo(t, syscall.Mkfifo(p("fifo"), 0o644))
	mustDo(t, os.WriteFile(p("twice"), []byte("x"), 0o644))
	mustDo(t, os.Link(p("twice"), p("twice2")))
	mustDo(t, os.Symlink("loop", p("loop")))
	sum := sha512.Sum512([]byte("hello\n"))
	digest := hex.EncodeToString(sum[:])
	me := strconv.Itoa(os.Getuid())
	h := &Host{}

	cases := []struct {
		name string
		q    detect.Query
		want detect.Answer
	}{
		{"type of a file", detect.Query{Op: detect.OpType, Path: p("file")}, detect.Answer{Status: detect.StatusOK, Type: detect.TypeRegular}},
		{"type follows a link", detect.Query{Op: detect.OpType, Path: p("to-dir")}, detect.Answer{Status: detect.StatusOK, Type: detect.TypeDirectory}},
		{"type of a dangling link", detect.Query{Op: detect.OpType, Path: p("dangling")}, detect.Answer{Status: detect.StatusMissing}},
		{"type of a link loop", detect.Query{Op: detect.OpType, Path: p("loop")}, detect.Answer{Status: detect.StatusMissing}},
		{"type of nothing", detect.Query{Op: detect.OpType, Path: p("none")}, detect.Answer{Status: detect.StatusMissing}},
		{"type under a file", detect.Query{Op: detect.OpType, Path: p("file/x")}, detect.Answer{Status: detect.StatusMissing}},
		{"type of a fifo", detect.Query{Op: detect.OpType, Path: p("fifo")}, detect.Answer{Status: detect.StatusOK, Type: detect.TypeFIFO}},
		{"stat of a link", detect.Query{Op: detect.OpStat, Path: p("to-dir")}, detect.Answer{Status: detect.StatusOK, Type: detect.TypeSymlink, Mode: 0o777}},
		{"stat of nothing", detect.Query{Op: detect.OpStat, Path: p("none")}, detect.Answer{Status: detect.StatusMissing}},
		{"readlink", detect.Query{Op: detect.OpReadlink, Path: p("to-file")}, detect.Answer{Status: detect.StatusOK, Target: "file"}},
		{"readlink of a file", detect.Query{Op: detect.OpReadlink, Path: p("file")}, detect.Answer{Status: detect.StatusMissing}},
		{"readlink of nothing", detect.Query{Op: detect.OpReadlink, Path: p("none")}, detect.Answer{Status: detect.StatusMissing}},
		{"digest", detect.Query{Op: detect.OpDigest, Path: p("file")}, detect.Answer{Status: detect.StatusOK, SHA512: digest}},
		{"digest of nothing", detect.Query{Op: detect.OpDigest, Path: p("none")}, detect.Answer{Status: detect.StatusMissing}},
		{"digest through a link", detect.Query{Op: detect.OpDigest, Path: p("to-file")}, detect.Answer{Status: detect.StatusNotRegular, Type: detect.TypeSymlink}},
		{"digest of a dangling link", detect.Query{Op: detect.OpDigest, Path: p("dangling")}, detect.Answer{Status: detect.StatusNotRegular, Type: detect.TypeSymlink}},
		{"digest of a directory", detect.Query{Op: detect.OpDigest, Path: p("dir")}, detect.Answer{Status: detect.StatusNotRegular, Type: detect.TypeDirectory}},
		{"digest of a fifo", detect.Query{Op: detect.OpDigest, Path: p("fifo")}, detect.Answer{Status: detect.StatusNotRegular, Type: detect.TypeFIFO}},
		{"digest of a device", detect.Query{Op: detect.OpDigest, Path: "/dev/null"}, detect.Answer{Status: detect.StatusNotRegular, Type: detect.TypeCharDev}},
		{"digest of a hard-linked file", detect.Query{Op: detect.OpDigest, Path: p("twice")}, detect.Answer{Status: detect.StatusHardLinked, Links: 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := answer(t, h, c.q)
			if c.q.Op == detect.OpStat && got.Status == detect.StatusOK {
				got.Owner, got.Group = "", ""
			}
			if got != c.want {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}

	st := answer(t, h, detect.Query{Op: detect.OpStat, Path: p("file")})
	if st.Status != detect.StatusOK || st.Type != detect.TypeRegular || st.Mode != 0o4640 || st.Owner == "" || st.Group == "" {
		t.Errorf("stat of a file: %+v", st)
	}
	if st.Owner == me && os.Getuid() == 0 {
		t.Errorf("root's name is %q, want a name", st.Owner)
	}
	if st := answer(t, h, detect.Query{Op: detect.OpStat, Path: p("dir")}); st.Type != detect.TypeDirectory || st.Mode != 0o750 {
		t.Errorf("stat of a directory: %+v", st)
	}
}

func TestDigestUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root, which reads a mode 000 file; zap-detect's script detect_file_unreadable.txtar covers this as an unprivileged account")
	}
	dir := t.TempDir()
	f := filepath.Join(dir, "secret")
	mustDo(t, os.WriteFile(f, []byte("x"), 0))
	if a := answer(t, &Host{}, detect.Query{Op: detect.OpDigest, Path: f, Lane: observation.LaneLogin}); a.Status != detect.StatusDenied {
		t.Errorf("digest of an unreadable file: %+v", a)
	}
	mustDo(t, os.Chmod(dir, 0))
	defer os.Chmod(dir, 0o700)
	if a := answer(t, &Host{}, detect.Query{Op: detect.OpStat, Path: f, Lane: observation.LaneLogin}); a.Status != detect.StatusDenied {
		t.Errorf("stat under an unsearchable directory: %+v", a)
	}
}

// TestRootLane checks that the root lane is read as root in one sudo batch.
func TestRootLane(t *testing.T) {
	if _, err := exec.LookPath("sudo"); err != nil || os.Geteuid() != 0 {
		t.Skip("needs root and sudo (root's sudo never prompts); zap-detect's local_sudo script covers an unprivileged account")
	}
	dir := t.TempDir()
	mustDo(t, os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o600))
	h := &Host{Env: os.Environ()}
	as, err := h.Answer(context.Background(), observation.LaneRoot, []detect.Query{{Op: detect.OpType, Path: "/"}, {Op: detect.OpStat, Path: filepath.Join(dir, "f")}})
	if err != nil {
		t.Fatal(err)
	}
	if as[0].Type != detect.TypeDirectory || as[1].Owner != "root" || as[1].Mode != 0o600 {
		t.Fatalf("got %+v", as)
	}
}

// TestSudoRefused checks that a sudo that won't authenticate fails the
// root lane with the fixed reason, and the denied elevated reads with it.
func TestSudoRefused(t *testing.T) {
	bin := t.TempDir()
	mustDo(t, os.WriteFile(filepath.Join(bin, "sudo"), []byte("#!/bin/sh\necho 'sudo: a password is required' >&2\nexit 1\n"), 0o755))
	t.Setenv("PATH", bin+string(filepath.ListSeparator)+os.Getenv("PATH"))
	h := &Host{Env: os.Environ()}
	_, err := h.Answer(context.Background(), observation.LaneRoot, []detect.Query{{Op: detect.OpType, Path: "/"}})
	if err == nil || err.Error() != SudoFailed {
		t.Fatalf("root lane: %v", err)
	}
	qs := []detect.Query{{Op: detect.OpType, Path: "/"}, {Op: detect.OpDigest, Path: "/x"}}
	as := []detect.Answer{{Status: detect.StatusOK, Type: detect.TypeDirectory}, {Status: detect.StatusDenied}}
	h.reaskDenied(context.Background(), qs, as)
	if as[0].Status != detect.StatusOK || as[1].Status != detect.StatusSudoFailed {
		t.Fatalf("got %+v", as)
	}
}

func command(text string) detect.Query {
	return detect.Query{Op: detect.OpCommand, Lane: observation.LaneLogin, Command: &detect.Command{Text: text, Timeout: 30}}
}

func TestCommand(t *testing.T) {
	h := &Host{Env: []string{"PATH=" + os.Getenv("PATH"), "LANG=xx_XX.UTF-8", "FROM_OPERATOR=yes"}}
	dir := t.TempDir()
	cases := []struct {
		name string
		q    detect.Query
		want detect.Answer
	}{
		{"exit 0", command("true"), detect.Answer{Status: detect.StatusOK}},
		{"exit 3", command("exit 3"), detect.Answer{Status: detect.StatusOK, Exit: 3}},
		{"a syntax error", command("if then fi ("), detect.Answer{Status: detect.StatusOK, Exit: 2}},
		{"the operator's environment and locale", command(`[ "$FROM_OPERATOR" = yes ] && [ "$LANG" = xx_XX.UTF-8 ] && [ -z "${LC_ALL+set}" ]`), detect.Answer{Status: detect.StatusOK}},
		{"stdin is no terminal and not the script", command("[ ! -t 0 ] || exit 1\nif read -r line; then exit 1; fi\nexit 0"), detect.Answer{Status: detect.StatusOK}},
		{"a session of its own", command(`read -r pid comm state ppid pgrp session rest < /proc/self/stat; [ "$pgrp" = "$session" ] && [ "$session" != ` + strconv.Itoa(os.Getpid()) + ` ] && [ "$(cat /proc/$$/stat | cut -d' ' -f6)" = "$$" ]`), detect.Answer{Status: detect.StatusOK}},
		{"killed", command("kill -KILL $$"), detect.Answer{Status: detect.StatusFailed, Detail: "killed by signal 9 (killed)"}},
		{"cwd and env", detect.Query{Op: detect.OpCommand, Lane: observation.LaneLogin, Command: &detect.Command{
			Text: `[ "$(pwd)" = "$D" ] && [ "$Q" = "it's" ]`, Cwd: dir, Timeout: 30,
			Env: []detect.Var{{Name: "D", Value: dir}, {Name: "Q", Value: "it's"}}}}, detect.Answer{Status: detect.StatusOK}},
		{"a cwd it can't enter", detect.Query{Op: detect.OpCommand, Lane: observation.LaneLogin, Command: &detect.Command{
			Text: "true", Cwd: filepath.Join(dir, "none"), Timeout: 30}}, detect.Answer{Status: detect.StatusOK, Exit: 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := answer(t, h, c.q)
			if c.name == "a cwd it can't enter" && got.Status == detect.StatusOK && got.Exit != 0 {
				got.Exit = 2 // the shell's own nonzero status
			}
			if got != c.want {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
	if a := answer(t, &Host{Shell: filepath.Join(dir, "no-shell")}, command("true")); a.Status != detect.StatusFailed || !strings.Contains(a.Detail, "can't start") {
		t.Errorf("a shell that can't start: %+v", a)
	}
}

// TestCommandTimeout checks a command past its limit: the whole group,
// a child ignoring SIGTERM included, is stopped, a second after SIGTERM.
func TestCommandTimeout(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child")
	q := detect.Query{Op: detect.OpCommand, Lane: observation.LaneLogin, Command: &detect.Command{
		Text:    "sh -c 'trap \"\" TERM; echo $$ > " + pidFile + "; sleep 60' &\nsleep 60",
		Timeout: 1,
	}}
	start := time.Now()
	got := answer(t, &Host{Env: []string{"PATH=" + os.Getenv("PATH")}}, q)
	took := time.Since(start)
	if got.Status != detect.StatusTimedOut {
		t.Errorf("got %+v, want timed_out", got)
	}
	if took < 2*time.Second || took > 10*time.Second {
		t.Errorf("took %v, want the 1s limit and the 1s grace", took)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the child never ran: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("child pid %q: %v", data, err)
	}
	// The child is gone, or a zombie waiting for an init that doesn't reap.
	deadline := time.Now().Add(5 * time.Second)
	for {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil || strings.Contains(string(stat), ") Z ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the child that ignores SIGTERM is still running: %s", stat)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestCommandCancelled(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	a, err := (&Host{}).Answer(ctx, observation.LaneLogin, []detect.Query{command("sleep 60")})
	if err != nil {
		t.Fatal(err)
	}
	if a[0].Status != detect.StatusFailed {
		t.Errorf("got %+v", a[0])
	}
}

// TestProbe checks that one of Zap's own probes answers with its stdout and
// exit status, under LC_ALL=C whatever the operator's locale, and that one
// printing past the limit fails; in the root lane it runs in the sudo
// batch.
func TestProbe(t *testing.T) {
	h := &Host{Env: []string{"PATH=" + os.Getenv("PATH"), "LANG=xx_XX.UTF-8"}}
	cases := []struct {
		name string
		text string
		want detect.Answer
	}{
		{"output and status", "printf 'a\\000b\\n'; exit 3", detect.Answer{Status: detect.StatusOK, Exit: 3, Output: "a\x00b\n"}},
		{"LC_ALL=C", `echo "$LC_ALL"`, detect.Answer{Status: detect.StatusOK, Output: "C\n"}},
		{"past the limit", "head -c 1048577 /dev/zero", detect.Answer{Status: detect.StatusFailed, Detail: "the probe printed more than 1048576 bytes"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := answer(t, h, detect.NewProbe(observation.LaneLogin, c.text)); got != c.want {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
	if _, err := exec.LookPath("sudo"); err != nil || os.Geteuid() != 0 {
		t.Skip("the root lane's probe needs root and sudo (root's sudo never prompts); not run here")
	}
	as, err := (&Host{Env: os.Environ()}).Answer(context.Background(), observation.LaneRoot, []detect.Query{detect.NewProbe(observation.LaneRoot, "id -u; exit 4")})
	if err != nil {
		t.Fatal(err)
	}
	if want := (detect.Answer{Status: detect.StatusOK, Exit: 4, Output: "0\n"}); as[0] != want {
		t.Fatalf("root lane: got %+v, want %+v", as[0], want)
	}
}

// TestContentRead checks the bounded read: a small file whole, a longer one
// cut at the limit and marked over, and the same refusals as a digest.
func TestContentRead(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	mustDo(t, os.WriteFile(p("small"), []byte("a\nb\n"), 0o644))
	mustDo(t, os.WriteFile(p("long"), []byte("0123456789"), 0o644))
	mustDo(t, os.WriteFile(p("twice"), []byte("x"), 0o644))
	mustDo(t, os.Link(p("twice"), p("twice2")))
	mustDo(t, os.Symlink(p("small"), p("link")))
	mustDo(t, syscall.Mkfifo(p("fifo"), 0o644))
	h := &Host{}
	cases := []struct {
		path  string
		limit int
		want  detect.Answer
	}{
		{p("small"), 64, detect.Answer{Status: detect.StatusOK, Content: "a\nb\n"}},
		{p("long"), 10, detect.Answer{Status: detect.StatusOK, Content: "0123456789"}},
		{p("long"), 4, detect.Answer{Status: detect.StatusOK, Content: "0123", Over: true}},
		{p("none"), 4, detect.Answer{Status: detect.StatusMissing}},
		{p("link"), 4, detect.Answer{Status: detect.StatusNotRegular, Type: detect.TypeSymlink}},
		{p("fifo"), 4, detect.Answer{Status: detect.StatusNotRegular, Type: detect.TypeFIFO}},
		{dir, 4, detect.Answer{Status: detect.StatusNotRegular, Type: detect.TypeDirectory}},
		{p("twice"), 4, detect.Answer{Status: detect.StatusHardLinked, Links: 2}},
		{p("small"), 0, detect.Answer{Status: detect.StatusFailed, Detail: "a content read's limit is 1 to 1048576 bytes"}},
	}
	for _, c := range cases {
		got := answer(t, h, detect.Query{Op: detect.OpContent, Lane: observation.LaneLogin, Path: c.path, Limit: c.limit})
		if got != c.want {
			t.Errorf("%s (limit %d): got %+v, want %+v", c.path, c.limit, got, c.want)
		}
	}
}

// TestFileTypeOfStat checks that batch.FileType, which reads stat's %f,
// reads the st_mode of this system's stat(2) alike.
func TestFileTypeOfStat(t *testing.T) {
	for mode, want := range map[uint32]detect.FileType{
		syscall.S_IFREG | 0o644:  detect.TypeRegular,
		syscall.S_IFDIR | 0o755:  detect.TypeDirectory,
		syscall.S_IFLNK | 0o777:  detect.TypeSymlink,
		syscall.S_IFIFO | 0o600:  detect.TypeFIFO,
		syscall.S_IFSOCK | 0o755: detect.TypeSocket,
		syscall.S_IFCHR | 0o666:  detect.TypeCharDev,
		syscall.S_IFBLK | 0o660:  detect.TypeBlockDev,
		0o644:                    detect.TypeOther,
	} {
		if got := batch.FileType(mode); got != want {
			t.Errorf("FileType(%#o) = %s, want %s", mode, got, want)
		}
	}
}
