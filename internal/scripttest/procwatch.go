package scripttest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdProcwatch is the procwatch command:
//
//	procwatch start NAME ACCOUNT
//	    starts a watch, run as ACCOUNT (no supplementary groups), that reads
//	    every /proc/PID/cmdline over and over and writes each argv it sees
//	    once, its NULs as spaces, to $WORK/procwatch/NAME
//	procwatch stop NAME
//	    stops it, logs how many times it read the process table, and fails
//	    unless it read it at least three times as ACCOUNT and nothing went
//	    wrong
//
// The watch is the test binary itself, started again as root (so it needn't
// be readable by ACCOUNT) and dropping to ACCOUNT before its first read;
// procwatchMain is its body. A read of one process's cmdline can block (the
// kernel takes the process's memory lock, which a process in exec or a
// fault can hold for a while); the watch never waits on one: each read runs
// on its own, a process whose read is still out is passed over until it
// returns, and the table is read again meanwhile. So one stuck process can't
// stop the watch seeing the others.
func cmdProcwatch(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("usage: procwatch start NAME ACCOUNT | procwatch stop NAME")
	}
	switch {
	case len(args) == 3 && args[0] == "start":
		procwatchStart(ts, args[1], args[2])
	case len(args) == 2 && args[0] == "stop":
		procwatchStop(ts, args[1])
	default:
		ts.Fatalf("usage: procwatch start NAME ACCOUNT | procwatch stop NAME")
	}
}

// watch is one running procwatch.
type watch struct {
	cmd    *exec.Cmd
	stop   io.Closer
	report *bytes.Buffer
}

var (
	watchesMu sync.Mutex
	watches   = map[*testscript.TestScript]map[string]*watch{}
)

// procwatchEnv names the account a started test binary watches as; when it
// is set, Main runs procwatchMain instead of the tests.
const procwatchEnv = "ZAP_TEST_PROCWATCH"

func procwatchStart(ts *testscript.TestScript, name, account string) {
	if os.Geteuid() != 0 {
		ts.Fatalf("procwatch: needs root to watch as another account; guard the script with [!root] skip")
	}
	if strings.ContainsAny(name, "/.") || name == "" {
		ts.Fatalf("procwatch: bad name %q", name)
	}
	self, err := os.Executable()
	ts.Check(err)
	dir := filepath.Join(ts.Getenv("WORK"), "procwatch")
	ts.Check(os.MkdirAll(dir, 0o755))
	out, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	ts.Check(err)
	defer out.Close()
	cmd := exec.Command(self)
	cmd.Env = []string{procwatchEnv + "=" + account, "PATH=/usr/bin:/bin"}
	cmd.Dir = "/"
	cmd.ExtraFiles = []*os.File{out}
	stdin, err := cmd.StdinPipe()
	ts.Check(err)
	report := new(bytes.Buffer)
	cmd.Stdout = report
	cmd.Stderr = report
	ts.Check(cmd.Start())
	w := &watch{cmd: cmd, stop: stdin, report: report}
	watchesMu.Lock()
	if watches[ts] == nil {
		watches[ts] = map[string]*watch{}
	}
	if watches[ts][name] != nil {
		watchesMu.Unlock()
		ts.Fatalf("procwatch: %s is already running", name)
	}
	watches[ts][name] = w
	watchesMu.Unlock()
	ts.Defer(func() {
		if w.cmd.ProcessState == nil {
			w.cmd.Process.Kill()
			w.cmd.Wait()
		}
		watchesMu.Lock()
		delete(watches, ts)
		watchesMu.Unlock()
	})
}

func procwatchStop(ts *testscript.TestScript, name string) {
	watchesMu.Lock()
	w := watches[ts][name]
	if w != nil {
		delete(watches[ts], name)
	}
	watchesMu.Unlock()
	if w == nil {
		ts.Fatalf("procwatch: %s is not running", name)
	}
	w.stop.Close()
	done := make(chan error, 1)
	go func() { done <- w.cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		w.cmd.Process.Kill()
		<-done
		ts.Fatalf("procwatch: %s did not stop within 30s of being told to: %s", name, w.report)
	}
	ts.Logf("procwatch %s: %s", name, strings.TrimSpace(w.report.String()))
	if err != nil {
		ts.Fatalf("procwatch: %s: %v", name, err)
	}
}

// procwatchMain is the watch: it drops to the account named in
// $ZAP_TEST_PROCWATCH, reads the process table until its stdin closes,
// writes each distinct argv to fd 3, and reports on stdout. Its exit status
// is 1 when it could not watch as the account or read the table fewer than
// three times.
func procwatchMain() int {
	out := os.NewFile(3, "procwatch-out")
	if err := dropTo(os.Getenv(procwatchEnv)); err != nil {
		fmt.Printf("could not become %s: %v\n", os.Getenv(procwatchEnv), err)
		return 1
	}
	stop := make(chan struct{})
	go func() {
		io.Copy(io.Discard, os.Stdin)
		close(stop)
	}()
	bw := bufio.NewWriter(out)
	seen := map[string]bool{}
	type result struct {
		pid  string
		argv []byte
	}
	results := make(chan result, 1024)
	inflight := map[string]bool{}
	passes, reads, passed := 0, 0, 0
	for {
		select {
		case <-stop:
			bw.Flush()
			fmt.Printf("%d passes over the process table as uid %d, %d cmdline reads, %d passed over while a read was out\n",
				passes, os.Geteuid(), reads, passed)
			if passes < 3 {
				return 1
			}
			return 0
		default:
		}
		ents, err := os.ReadDir("/proc")
		if err != nil {
			fmt.Printf("read /proc: %v\n", err)
			return 1
		}
		for _, e := range ents {
			pid := e.Name()
			if _, err := strconv.Atoi(pid); err != nil {
				continue
			}
			if inflight[pid] {
				passed++
				continue
			}
			inflight[pid] = true
			go func() {
				b, _ := os.ReadFile("/proc/" + pid + "/cmdline")
				results <- result{pid, b}
			}()
		}
		// Take what comes back within a short while; a read still out
		// is collected on a later pass.
		deadline := time.After(50 * time.Millisecond)
	collect:
		for len(inflight) > 0 {
			select {
			case r := <-results:
				reads++
				delete(inflight, r.pid)
				note(bw, seen, r.argv)
			case <-deadline:
				break collect
			}
		}
		passes++
	}
}

// note writes argv, its NULs as spaces, once.
func note(w *bufio.Writer, seen map[string]bool, argv []byte) {
	line := string(bytes.TrimRight(bytes.ReplaceAll(argv, []byte{0}, []byte{' '}), " "))
	if line == "" || seen[line] {
		return
	}
	seen[line] = true
	w.WriteString(line)
	w.WriteByte('\n')
}

// dropTo makes the whole process the account name, with its own group and
// no others, and checks that the kernel sees it so.
func dropTo(name string) error {
	u, err := user.Lookup(name)
	if err != nil {
		return err
	}
	uid, err := strconv.Atoi(u.Uid)
	if err != nil {
		return err
	}
	gid, err := strconv.Atoi(u.Gid)
	if err != nil {
		return err
	}
	if uid == 0 {
		return fmt.Errorf("%s is root", name)
	}
	if err := syscall.Setgroups(nil); err != nil {
		return fmt.Errorf("setgroups: %w", err)
	}
	if err := syscall.Setresgid(gid, gid, gid); err != nil {
		return fmt.Errorf("setresgid: %w", err)
	}
	if err := syscall.Setresuid(uid, uid, uid); err != nil {
		return fmt.Errorf("setresuid: %w", err)
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return err
	}
	want := map[string]string{
		"Uid:":    fmt.Sprintf("%d\t%d\t%d\t%d", uid, uid, uid, uid),
		"Gid:":    fmt.Sprintf("%d\t%d\t%d\t%d", gid, gid, gid, gid),
		"Groups:": "",
		"CapEff:": "0000000000000000",
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		k, v, _ := strings.Cut(line, "\t")
		if w, ok := want[strings.TrimSpace(k)]; ok {
			if strings.TrimSpace(v) != w {
				return fmt.Errorf("still %s %s after the drop (want %s)", k, v, w)
			}
			delete(want, strings.TrimSpace(k))
		}
	}
	if len(want) > 0 {
		return fmt.Errorf("/proc/self/status lacks %v", want)
	}
	return nil
}
