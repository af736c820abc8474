package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/zap-go/zap/internal/sandbox"
	"github.com/zap-go/zap/internal/scripttest"
)

func TestMain(m *testing.M) { scripttest.Main(m) }

// TestScripts runs the scripts with one more condition: [landlock] is true
// when the kernel enforces Landlock, which the sandbox scripts need; and
// two more commands, accountenv (below) and watch:
//
//	watch [-code N] [-maxrss MIB] [-filtered] [-kill D] CMD [ARGS...]
//	    runs CMD (from PATH) as runas does, as the unprivileged account
//	    when the tests run as root, its stdout and stderr what the
//	    next stdout and stderr commands match, and asserts its exit status
//	    (default 0). -maxrss: its peak RSS, and that of every process it
//	    waited for (the Maxrss wait4 reports, which takes in zap-eval's
//	    evaluating process), stayed below MIB MiB. -filtered: a child of
//	    CMD was seen with every thread under a seccomp filter (Seccomp: 2
//	    in /proc/PID/task/*/status) and no_new_privs. CMD is killed after
//	    D (default 2m), which fails the script: a bound that doesn't hold
//	    mustn't hang the tests.
func TestScripts(t *testing.T) {
	p := scripttest.Params("testdata/script")
	shared := p.Condition
	p.Condition = func(cond string) (bool, error) {
		if cond == "landlock" {
			return sandbox.ABI() >= sandbox.MinABI, nil
		}
		return shared(cond)
	}
	// accountenv sets ZAPTEST_UID and ZAPTEST_GID to the ids of the account
	// runas uses, for the scripts that play sudo (sandbox_eval_not_root).
	p.Cmds["accountenv"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 0 {
			ts.Fatalf("usage: accountenv")
		}
		u, err := user.Lookup(scripttest.TestAccount)
		ts.Check(err)
		ts.Setenv("ZAPTEST_UID", u.Uid)
		ts.Setenv("ZAPTEST_GID", u.Gid)
	}
	p.Cmds["watch"] = cmdWatch
	testscript.Run(t, p)
}

func cmdWatch(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("watch: use -code N rather than !")
	}
	const usage = "usage: watch [-code N] [-maxrss MIB] [-filtered] [-kill D] CMD [ARGS...]"
	code, maxRSS, filtered, kill := 0, int64(0), false, 2*time.Minute
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		var err error
		switch {
		case args[0] == "-filtered":
			filtered, args = true, args[1:]
			continue
		case len(args) < 2:
			ts.Fatalf("%s", usage)
		case args[0] == "-code":
			code, err = strconv.Atoi(args[1])
		case args[0] == "-maxrss":
			maxRSS, err = strconv.ParseInt(args[1], 10, 64)
		case args[0] == "-kill":
			kill, err = time.ParseDuration(args[1])
		default:
			ts.Fatalf("%s", usage)
		}
		if err != nil {
			ts.Fatalf("watch %s: %v", args[0], err)
		}
		args = args[2:]
	}
	if len(args) == 0 {
		ts.Fatalf("%s", usage)
	}
	path, err := exec.LookPath(args[0])
	ts.Check(err)
	cmd := exec.Command(path, args[1:]...)
	cmd.Args[0] = args[0]
	cmd.Dir = ts.MkAbs(".")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: scripttest.Unprivileged(ts)}
	// The script's environment, as run passes it: testscript keeps it
	// private, so it is read back through env.
	ts.Check(ts.Exec("env", "-0"))
	for _, kv := range strings.Split(ts.ReadFile("stdout"), "\x00") {
		if kv != "" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	ts.Check(cmd.Start())
	killed := time.AfterFunc(kill, func() { cmd.Process.Kill() })
	seen := make(chan string, 1)
	if filtered {
		go func() { seen <- watchFiltered(cmd.Process.Pid) }()
	}
	err = cmd.Wait()
	stopped := !killed.Stop()
	ts.Stdout().Write([]byte(stdout.String()))
	ts.Stderr().Write([]byte(stderr.String()))
	if stopped {
		ts.Fatalf("%s ran longer than %s and was killed", args[0], kill)
	}
	got := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		got = ee.ExitCode()
	} else if err != nil {
		ts.Fatalf("watch %s: %v", args[0], err)
	}
	if got != code {
		ts.Fatalf("%s exited %d, want %d\nstderr:\n%s", args[0], got, code, stderr.String())
	}
	if maxRSS > 0 {
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		peak := ru.Maxrss >> 10 // KiB to MiB
		ts.Logf("peak RSS of %s and what it waited for: %d MiB", args[0], peak)
		if peak >= maxRSS {
			ts.Fatalf("%s peaked at %d MiB RSS, not below %d MiB", args[0], peak, maxRSS)
		}
	}
	if filtered {
		if msg := <-seen; msg != "" {
			ts.Fatalf("%s", msg)
		}
	}
}

// watchFiltered polls the children of pid until one has every thread
// under a seccomp filter, or pid is gone; it returns "" when one was seen,
// otherwise what was.
func watchFiltered(pid int) string {
	last := "no child of " + strconv.Itoa(pid) + " was seen"
	for {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err != nil {
			return last
		}
		for _, child := range childrenOf(pid) {
			tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", child))
			all := len(tasks) > 0
			for _, task := range tasks {
				status, err := os.ReadFile(task)
				if err != nil || !strings.Contains(string(status), "\nSeccomp:\t2\n") || !strings.Contains(string(status), "\nNoNewPrivs:\t1\n") {
					all = false
					if err == nil {
						last = fmt.Sprintf("%s of the child %d: %s", task, child, seccompLines(status))
					}
					break
				}
			}
			if all {
				return ""
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// childrenOf lists the processes whose parent is pid.
func childrenOf(pid int) []int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var kids []int
	for _, st := range stats {
		b, err := os.ReadFile(st)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			n, _ := strconv.Atoi(filepath.Base(filepath.Dir(st)))
			kids = append(kids, n)
		}
	}
	return kids
}

func seccompLines(status []byte) string {
	var out []string
	for _, l := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(l, "Seccomp:") || strings.HasPrefix(l, "NoNewPrivs:") {
			out = append(out, strings.ReplaceAll(l, "\t", " "))
		}
	}
	return strings.Join(out, ", ")
}
