package localops

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/events"
)

func host() *Host { return New(os.Environ()) }

func check(text string) *execute.Command {
	return &execute.Command{Script: execute.Script("", nil, text)}
}

func TestPutValidatePasses(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "conf")
	os.WriteFile(path, []byte("old\n"), 0o644)
	p := put(path, []byte("new\n"))
	// The check sees the new content in place.
	p.Validate = check("grep -qx new " + vocab.Quote(path))
	if err := host().Put(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	wantContent(t, path, []byte("new\n"))
}

func TestPutValidateFailureRestoresByteForByte(t *testing.T) {
	forEach(t, func(t *testing.T, b backend, root string) {
		path := filepath.Join(root, "conf")
		old := []byte("old\x00\xff bytes\r\nwithout a final newline")
		os.WriteFile(path, old, 0o600)
		os.Chmod(path, 0o640)
		asRoot := os.Geteuid() == 0
		if asRoot {
			os.Chown(path, 4321, 4322)
		} else {
			t.Log("not root: the owner put back is only checked to be unchanged")
		}
		before := stat(t, path)
		p := put(path, []byte("new\n"))
		p.Mode = "644"
		p.Validate = check("echo checking; echo 'bad config' >&2; exit 3")
		err := b.Put(context.Background(), p)
		if err == nil {
			t.Fatal("a failed check left the put succeeding")
		}
		code, exit, output := execute.Classify(err)
		if code != events.ExecutionFailed || exit == nil || *exit != 3 {
			t.Fatalf("code %s exit %v, want execution_failed 3 (%v)", code, exit, err)
		}
		if output != "checking\nbad config\n" {
			t.Fatalf("output %q, want the check's stdout then stderr", output)
		}
		if !strings.Contains(err.Error(), "the check exited 3; the old file is back") {
			t.Fatalf("error %q doesn't say the old file is back", err)
		}
		wantContent(t, path, old)
		after := stat(t, path)
		if after.Mode != before.Mode || after.Uid != before.Uid || after.Gid != before.Gid {
			t.Fatalf("put back as mode %o %d:%d, was %o %d:%d", after.Mode, after.Uid, after.Gid, before.Mode, before.Uid, before.Gid)
		}
		if asRoot && (after.Uid != 4321 || after.Gid != 4322) {
			t.Fatalf("owner %d:%d, want 4321:4322", after.Uid, after.Gid)
		}
		noStaged(t, root)
	})
}

func TestPutValidateRestoreDropsSetID(t *testing.T) {
	for _, tc := range []struct {
		declared string
		want     uint32
	}{
		{"644", 0o755},   // the declared mode carries no set-id bit: none is put back
		{"4700", 0o4755}, // it carries set-uid: that one may be put back
	} {
		forEach(t, func(t *testing.T, b backend, root string) {
			path := filepath.Join(root, "bin")
			os.WriteFile(path, []byte("old"), 0o755)
			syscall.Chmod(path, 0o6755)
			p := put(path, []byte("new"))
			p.Mode = tc.declared
			p.Validate = check("false")
			if err := b.Put(context.Background(), p); err == nil {
				t.Fatal("a failed check left the put succeeding")
			}
			wantContent(t, path, []byte("old"))
			wantMode(t, path, tc.want)
		})
	}
}

func TestPutValidateFailureRemovesNewFile(t *testing.T) {
	forEach(t, func(t *testing.T, b backend, root string) {
		path := filepath.Join(root, "conf")
		p := put(path, []byte("new"))
		p.Validate = check("exit 1")
		err := b.Put(context.Background(), p)
		if err == nil || !strings.Contains(err.Error(), "the new file is removed") {
			t.Fatalf("error %v, want the new file removed", err)
		}
		if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("the new file is still there: %v", err)
		}
		noStaged(t, root)
	})
}

func TestPutValidateRefusesWhatItCantPutBack(t *testing.T) {
	forEach(t, func(t *testing.T, b backend, root string) {
		other := filepath.Join(root, "other")
		os.WriteFile(other, []byte("other"), 0o644)
		link := filepath.Join(root, "link")
		os.Symlink(other, link)
		fifo := filepath.Join(root, "fifo")
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Fatal(err)
		}
		big := filepath.Join(root, "big")
		os.WriteFile(big, bytes.Repeat([]byte("x"), SnapshotLimit+1), 0o644)
		for _, tc := range []struct {
			path string
			code events.Code
		}{
			{link, events.Conflict},
			{fifo, events.Conflict},
			{big, events.Permanent},
		} {
			t.Run(filepath.Base(tc.path), func(t *testing.T) {
				marker := filepath.Join(root, "ran")
				p := put(tc.path, []byte("new"))
				p.Validate = check("touch " + vocab.Quote(marker))
				done := make(chan error, 1)
				go func() { done <- b.Put(context.Background(), p) }()
				select {
				case err := <-done:
					wantCode(t, err, tc.code)
				case <-time.After(10 * time.Second):
					t.Fatal("the put waited on what is at the path")
				}
				if _, err := os.Lstat(marker); err == nil {
					t.Fatal("the check ran, so something was written")
				}
				noStaged(t, root)
			})
		}
		wantContent(t, other, []byte("other"))
		if target, _ := os.Readlink(link); target != other {
			t.Fatalf("the link was replaced")
		}
		if fi, _ := os.Lstat(big); fi.Size() != SnapshotLimit+1 {
			t.Fatalf("the big file was rewritten")
		}
	})
}

func TestPutUnknownOwnerWritesNothing(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "f")
	p := put(path, []byte("x"))
	p.Owner = "no-such-account-zap"
	wantCode(t, host().Put(context.Background(), p), events.NotFound)
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a file was written")
	}
	noStaged(t, root)
}

func TestPutDeniedDirectoryIsPermission(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into a read-only directory; this test needs an unprivileged uid")
	}
	root := t.TempDir()
	dir := filepath.Join(root, "ro")
	os.Mkdir(dir, 0o555)
	wantCode(t, host().Put(context.Background(), put(filepath.Join(dir, "f"), []byte("x"))), events.Permission)
}

func TestRunExitStatusAndOutput(t *testing.T) {
	err := host().Run(context.Background(), check("echo out; echo err >&2; exit 7"))
	var ee *execute.ExitError
	if !errors.As(err, &ee) || ee.Status != 7 {
		t.Fatalf("%v, want exit 7", err)
	}
	if ee.Output != "out\nerr\n" {
		t.Fatalf("output %q", ee.Output)
	}
}

func TestRunCwdAndEnv(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "out")
	value := `it's "quoted" $HOME ` + "`x`\nsecond line"
	c := &execute.Command{Cwd: root, Script: execute.Script(root, map[string]string{"V": value}, `pwd > out; printf '%s' "$V" >> out`)}
	if err := host().Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	wantContent(t, out, []byte(root+"\n"+value))
}

func TestRunCwdMissingRunsNothing(t *testing.T) {
	root := t.TempDir()
	marker := filepath.Join(root, "ran")
	missing := filepath.Join(root, "missing")
	c := &execute.Command{Cwd: missing, Script: execute.Script(missing, nil, "touch "+vocab.Quote(marker))}
	err := host().Run(context.Background(), c)
	wantCode(t, err, events.NotFound)
	if !strings.Contains(err.Error(), "can't enter "+missing) {
		t.Fatalf("error %q doesn't name the directory", err)
	}
	if _, err := os.Lstat(marker); err == nil {
		t.Fatal("the command ran")
	}
}

func TestRunHasNoInputNorTerminal(t *testing.T) {
	// A command reading stdin gets nothing, and doesn't eat the rest of the
	// script; there is no terminal to open.
	err := host().Run(context.Background(), check("read x || true; echo \"[$x]\"\ncat\nif (: </dev/tty) 2>/dev/null; then echo tty; fi\nexit 4"))
	var ee *execute.ExitError
	if !errors.As(err, &ee) || ee.Status != 4 || ee.Output != "[]\n" {
		t.Fatalf("%v %q, want exit 4 and output [] alone", err, ee.Output)
	}
}

func TestRunTimeoutKillsTheGroup(t *testing.T) {
	root := t.TempDir()
	pidfile := filepath.Join(root, "pid")
	c := check("sleep 60 & echo $! > " + vocab.Quote(pidfile) + "\necho started\nwait")
	c.Timeout = time.Second
	start := time.Now()
	err := host().Run(context.Background(), c)
	var te *execute.TimeoutError
	if !errors.As(err, &te) || te.Output != "started\n" {
		t.Fatalf("%v, want a timeout with the output so far", err)
	}
	if code, _, _ := execute.Classify(err); code != events.Transient {
		t.Fatalf("code %s, want transient", code)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("took %s to stop", d)
	}
	b, _ := os.ReadFile(pidfile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if pid == 0 {
		t.Fatal("no pid written")
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil || strings.Contains(string(st), ") Z ") {
			break // gone, or a zombie waiting for its reaper
		}
		if time.Now().After(deadline) {
			t.Fatalf("the background sleep %d outlived the timeout", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestRunOutputKeepsTheTail(t *testing.T) {
	err := host().Run(context.Background(), check("i=0; while [ $i -lt 20000 ]; do echo line-$i-xxxxxxxxxxxxxxxxxx; i=$((i+1)); done; echo the-end; exit 1"))
	var ee *execute.ExitError
	if !errors.As(err, &ee) {
		t.Fatal(err)
	}
	if len(ee.Output) > execute.OutputLimit || !strings.HasSuffix(ee.Output, "line-19999-xxxxxxxxxxxxxxxxxx\nthe-end\n") {
		t.Fatalf("output of %d bytes ending %q", len(ee.Output), ee.Output[max(0, len(ee.Output)-60):])
	}
}
