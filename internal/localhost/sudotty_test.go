package localhost

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/pkg/observation"
)

// sudoHelperEnv makes the test binary, run on a terminal by
// TestSudoAfterV, act as the front end and zap-detect would: optionally
// sudo -v on the terminal, then the root lane.
const sudoHelperEnv = "ZAP_TEST_SUDO_TTY_HELPER"

// TestSudoAfterV checks that a password typed for sudo -v on a terminal is
// what lets the root lane's sudo -n run: the account has a sudo rule that
// asks for a password, and sudo keeps the credential per terminal, so the
// lane's sudo must keep the session's terminal. Without the sudo -v first
// the same lane holds with the fixed reason, which shows the test can
// fail.
func TestSudoAfterV(t *testing.T) {
	switch os.Getenv(sudoHelperEnv) {
	case "warm":
		v := exec.Command("sudo", "-v")
		v.Stdin, v.Stdout, v.Stderr = os.Stdin, os.Stderr, os.Stderr
		if err := v.Run(); err != nil {
			fmt.Println("sudo -v failed:", err)
		}
		fallthrough
	case "cold":
		h := &Host{Env: os.Environ()}
		as, err := h.Answer(context.Background(), observation.LaneRoot, []detect.Query{{Op: detect.OpStat, Path: "/root"}})
		switch {
		case err != nil:
			fmt.Println("root lane:", err)
		default:
			fmt.Println("root lane:", as[0].Status, as[0].Owner)
		}
		return
	}
	for _, tool := range []string{"sudo", "script", "su", "useradd", "chpasswd"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s, which isn't installed", tool)
		}
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root, to make an account with a sudo rule that asks for a password")
	}
	var b [4]byte
	rand.Read(b[:])
	name := "zapsv" + hex.EncodeToString(b[:])
	password := "pw-" + hex.EncodeToString(b[:])
	mustRun(t, nil, "useradd", "-M", "-s", "/bin/sh", name)
	t.Cleanup(func() { exec.Command("userdel", name).Run() })
	mustRun(t, strings.NewReader(name+":"+password+"\n"), "chpasswd")
	rule := filepath.Join("/etc/sudoers.d", name)
	mustDo(t, os.WriteFile(rule, []byte(name+" ALL=(ALL) ALL\n"), 0o440))
	t.Cleanup(func() { os.Remove(rule) })

	dir, err := os.MkdirTemp("", "zap-sudotty-")
	mustDo(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	mustDo(t, os.Chmod(dir, 0o755))
	bin := filepath.Join(dir, "localhost.test")
	self, err := os.ReadFile(os.Args[0])
	mustDo(t, err)
	mustDo(t, os.WriteFile(bin, self, 0o755))

	run := func(mode string) string {
		inner := sudoHelperEnv + "=" + mode + " " + bin + " -test.run=^TestSudoAfterV$"
		cmd := exec.Command("su", name, "-s", "/bin/sh", "-c", "script -qec '"+inner+"' /dev/null")
		cmd.Dir = dir
		// The password is typed once sudo's prompt is on the terminal; stdin
		// stays open until the command ends.
		stdin, err := cmd.StdinPipe()
		mustDo(t, err)
		out := &promptWatch{prompt: "[sudo] password for " + name, answer: password + "\n", to: stdin}
		cmd.Stdout, cmd.Stderr = out, out
		mustDo(t, cmd.Start())
		// A guard, not a bound: a prompt that never came ends in EOF.
		guard := time.AfterFunc(time.Minute, func() { stdin.Close() })
		cmd.Wait()
		guard.Stop()
		return out.String()
	}
	if out := run("warm"); !strings.Contains(out, "[sudo] password for "+name) || !strings.Contains(out, "root lane: ok root") {
		t.Errorf("after sudo -v on the terminal, the root lane should read as root:\n%s", out)
	}
	if out := run("cold"); !strings.Contains(out, "root lane: "+SudoFailed) {
		t.Errorf("with no sudo -v first, the root lane should hold (%s):\n%s", SudoFailed, out)
	}
}

func mustRun(t *testing.T, stdin io.Reader, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Stdin = stdin
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}

// promptWatch collects a command's output and, the first time prompt
// appears in it, writes answer to the command's stdin.
type promptWatch struct {
	prompt, answer string
	to             io.Writer
	mu             sync.Mutex
	out            strings.Builder
	answered       bool
}

func (p *promptWatch) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.out.Write(b)
	if !p.answered && strings.Contains(p.out.String(), p.prompt) {
		p.answered = true
		io.WriteString(p.to, p.answer)
	}
	return len(b), nil
}

func (p *promptWatch) String() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}
