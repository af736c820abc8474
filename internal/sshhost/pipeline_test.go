package sshhost_test

import (
	"context"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/scripttest"
	"github.com/zap-go/zap/internal/sshhost"
	"github.com/zap-go/zap/pkg/events"
	"github.com/zap-go/zap/pkg/plan"
)

// pipeTarget is a connection to a private loopback sshd as the test
// account (NOPASSWD sudo there), and a directory it owns.
type pipeTarget struct {
	sshd *scripttest.SSHD
	c    *sshhost.Client
	e    *sshhost.Exec
	dir  string
}

func newPipeTarget(t *testing.T) *pipeTarget {
	t.Helper()
	s := scripttest.StartSSHD(t)
	t.Setenv("PATH", s.Bin+string(filepath.ListSeparator)+os.Getenv("PATH"))
	c, err := sshhost.Dial(context.Background(), sshhost.Target{Host: "127.0.0.1", Port: s.Port, User: scripttest.TestAccount, Identity: s.Identity}, t.TempDir())
	if err != nil {
		t.Fatalf("connect to the loopback sshd: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	dir, err := os.MkdirTemp("", "zap-pipe-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	u, err := user.Lookup(scripttest.TestAccount)
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	return &pipeTarget{sshd: s, c: c, e: c.Exec(), dir: dir}
}

func filePut(path, content string) execute.BatchStep {
	s := sha512.Sum512([]byte(content))
	return execute.BatchStep{Put: &execute.Put{Path: path, Content: []byte(content), SHA512: hex.EncodeToString(s[:]), Mode: "640", Owner: "root"}}
}

// login is an operation that runs script as the connecting user.
func login(script string, timeout time.Duration) execute.BatchStep {
	return execute.BatchStep{Op: &execute.ZapOp{Name: "test", Script: script, Privilege: plan.Login, Timeout: timeout}}
}

// asRoot is an operation that runs script under sudo.
func asRoot(script string) execute.BatchStep {
	return execute.BatchStep{Op: &execute.ZapOp{Name: "test", Script: script, Privilege: plan.Root}}
}

// results runs steps as one batch and returns each step's error, in order,
// up to and with the first that fails.
func results(t *testing.T, e *sshhost.Exec, steps []execute.BatchStep) []error {
	t.Helper()
	ctx := context.Background()
	b := e.Pipeline(ctx, steps)
	defer b.Close()
	var errs []error
	for range steps {
		err := b.Next(ctx)
		errs = append(errs, err)
		if err != nil {
			break
		}
	}
	return errs
}

func wantFile(t *testing.T, path, content string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || string(b) != content {
		t.Fatalf("%s holds %q (%v), want %q", path, b, err, content)
	}
}

func wantNoFile(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s exists (%v): a step after a failed one ran", path, err)
	}
}

// TestPipelineRunsInOrderAndStopsAtFirstFailure runs puts, a dir, a link
// and login and root operations in one session: each in order (a step sees
// what the one before it made), a failure classified as its own session's
// would be (the same error, text and code), and nothing after it run.
func TestPipelineRunsInOrderAndStopsAtFirstFailure(t *testing.T) {
	pt := newPipeTarget(t)
	d := pt.dir
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(d, "blocker"), []byte("x\n"), 0o644))
	steps := []execute.BatchStep{
		{Dir: &execute.Dir{Path: d + "/sub", Mode: "750", Owner: "root", Group: scripttest.TestAccount}},
		filePut(d+"/sub/a", "a\n"),
		{Link: &execute.Link{Path: d + "/ln", Target: "sub/a"}},
		asRoot("cat " + d + "/ln > " + d + "/copied\n"),
		login("id -un > "+d+"/who\n", time.Minute),
		filePut(d+"/blocker/f", "never\n"),
		filePut(d+"/after", "never\n"),
	}
	errs := results(t, pt.e, steps)
	if len(errs) != 6 {
		t.Fatalf("%d steps ended, want 6: %v", len(errs), errs)
	}
	for i, err := range errs[:5] {
		if err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
	}
	wantFile(t, d+"/sub/a", "a\n")
	wantFile(t, d+"/copied", "a\n")
	wantFile(t, d+"/who", scripttest.TestAccount+"\n")
	wantNoFile(t, d+"/after")
	// The failure is the one the put's own session gives.
	alone := pt.e.Put(context.Background(), steps[5].Put)
	if code, _, _ := execute.Classify(errs[5]); code != events.Conflict || errs[5].Error() != alone.Error() {
		t.Fatalf("the batch's failure: %v (%s); alone: %v", errs[5], code, alone)
	}
}

// TestPipelineFailureCodes checks that a step's exit 93, a root script's
// failure with its output, and a refusal sudo printed come back as their
// own sessions' would, the batch stopping at each.
func TestPipelineFailureCodes(t *testing.T) {
	pt := newPipeTarget(t)
	d := pt.dir
	bad := filePut(d+"/bad", "content\n")
	bad.Put.SHA512 = strings.Repeat("0", 128)
	fails := asRoot("echo out; echo 'it broke' >&2; exit 3\n")
	refused := asRoot("echo 'sudo: a password is required' >&2; exit 1\n")
	for _, tc := range []struct {
		step execute.BatchStep
		code events.Code
	}{
		{bad, events.Permanent},
		{fails, events.ExecutionFailed},
		{refused, events.Permission},
	} {
		errs := results(t, pt.e, []execute.BatchStep{filePut(d+"/ok", "ok\n"), tc.step, filePut(d+"/after", "no\n")})
		if len(errs) != 2 || errs[0] != nil {
			t.Fatalf("got %v, want the second step to fail", errs)
		}
		var alone error
		if tc.step.Put != nil {
			alone = pt.e.Put(context.Background(), tc.step.Put)
		} else {
			alone = pt.e.Op(context.Background(), tc.step.Op)
		}
		code, exit, out := execute.Classify(errs[1])
		acode, aexit, aout := execute.Classify(alone)
		if code != tc.code || code != acode || errs[1].Error() != alone.Error() || out != aout || (exit == nil) != (aexit == nil) || exit != nil && *exit != *aexit {
			t.Fatalf("in the batch: %v (%s, %q); alone: %v (%s, %q)", errs[1], code, out, alone, acode, aout)
		}
		wantNoFile(t, d+"/after")
	}
}

// TestPipelineDelimiterLikeContent puts content made of the lines that
// frame a batch (an end line, a here-document's delimiter, the content's
// end) and has a step print end lines of its own: the content arrives
// whole and the steps' ends are read right.
func TestPipelineDelimiterLikeContent(t *testing.T) {
	pt := newPipeTarget(t)
	d := pt.dir
	content := "ZAP_STEP_00_1\nZAP_END_00 1 0\n__zap_content_end__\nEOF\n'\n"
	errs := results(t, pt.e, []execute.BatchStep{
		filePut(d+"/a", content),
		login("printf 'ZAP_END_00 1 0\\nZAP_END_00 2 0\\n'; printf 'ZAP_END_00 2' >&2\n", 0),
		filePut(d+"/b", content+"x"),
		{Link: &execute.Link{Path: d + "/ln", Target: "x\nZAP_STEP_00_4\n"}},
	})
	for i, err := range errs {
		if err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
	}
	if len(errs) != 4 {
		t.Fatalf("%d steps ended, want 4", len(errs))
	}
	wantFile(t, d+"/a", content)
	wantFile(t, d+"/b", content+"x")
	if got, err := os.Readlink(d + "/ln"); err != nil || got != "x\nZAP_STEP_00_4\n" {
		t.Fatalf("the link reads %q (%v)", got, err)
	}
}

// TestPipelineTimeout checks that a step past its limit, counted from the
// end of the one before it, fails as timed out with what it printed, its
// script is stopped, and no step after it runs.
func TestPipelineTimeout(t *testing.T) {
	pt := newPipeTarget(t)
	d := pt.dir
	start := time.Now()
	errs := results(t, pt.e, []execute.BatchStep{
		login("sleep 1\n", 0),
		login("echo before; sleep 60; touch "+d+"/slept\n", 2*time.Second),
		filePut(d+"/after", "no\n"),
	})
	var te *execute.TimeoutError
	if len(errs) != 2 || errs[0] != nil || !errors.As(errs[1], &te) || te.After != 2*time.Second || !strings.Contains(te.Output, "before\n") {
		t.Fatalf("got %v (output %q)", errs, te.Output)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Fatalf("the timeout took %s", took)
	}
	wantNoFile(t, d+"/after")
}

// TestPipelineDroppedConnection kills the session's processes while a step
// runs: that step fails as transient, none after it runs, and every file
// written before is whole.
func TestPipelineDroppedConnection(t *testing.T) {
	pt := newPipeTarget(t)
	d := pt.dir
	ctx := context.Background()
	b := pt.e.Pipeline(ctx, []execute.BatchStep{
		filePut(d+"/a", "a\n"),
		login("touch "+d+"/started; sleep 60\n", 0),
		filePut(d+"/after", "no\n"),
	})
	defer b.Close()
	if err := b.Next(ctx); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(d + "/started"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the second step never started")
		}
	}
	pt.sshd.KillSessions()
	err := b.Next(ctx)
	if code, _, _ := execute.Classify(err); code != events.Transient {
		t.Fatalf("got %v (%s), want transient", err, code)
	}
	wantFile(t, d+"/a", "a\n")
	wantNoFile(t, d+"/after")
}

// alone is an Exec that isn't an execute.Pipeliner: every step its own
// session.
type alone struct{ execute.Host }

// TestRunnerEventsSameBatchedOrNot runs one plan (changes of several steps,
// a note and an operator's command among them, a failure in the third
// change) through the runner twice on the same files: with the steps
// batched and with a session each. The two event streams are the same
// byte for byte.
func TestRunnerEventsSameBatchedOrNot(t *testing.T) {
	pt := newPipeTarget(t)
	d := pt.dir
	change := func(id string, steps ...execute.PreparedStep) execute.PreparedChange {
		return execute.PreparedChange{Change: &plan.Change{ID: id, Type: "file", Action: "create"}, Steps: steps}
	}
	step := func(summary string, b execute.BatchStep) execute.PreparedStep {
		return execute.PreparedStep{Summary: summary, Put: b.Put, Dir: b.Dir, Link: b.Link, Op: b.Op}
	}
	p := &execute.Prepared{Hash: strings.Repeat("a", 64), Changes: []execute.PreparedChange{
		change("a",
			step("dir sub", execute.BatchStep{Dir: &execute.Dir{Path: d + "/sub", Mode: "755"}}),
			execute.PreparedStep{Summary: "a note", Note: "nothing to run"},
			step("put sub/a", filePut(d+"/sub/a", "a\n"))),
		change("b",
			step("put b", filePut(d+"/b", "b\n")),
			execute.PreparedStep{Summary: "echo", Command: &execute.Command{Script: "echo hi\n"}},
			step("link", execute.BatchStep{Link: &execute.Link{Path: d + "/ln", Target: "b"}})),
		change("c",
			step("say", login("echo said; echo on stderr >&2\n", time.Minute)),
			step("put blocked", filePut(d+"/blocker/f", "no\n")),
			step("put c", filePut(d+"/c", "no\n"))),
		change("d", step("put d", filePut(d+"/d", "no\n"))),
	}}
	run := func(h execute.Host) string {
		t.Helper()
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			os.RemoveAll(filepath.Join(d, e.Name()))
		}
		if err := os.WriteFile(filepath.Join(d, "blocker"), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		r := &execute.Runner{Host: h, Events: &out}
		res, err := r.Run(context.Background(), p)
		if err != nil || res.OK != 2 || res.Failed != 1 || res.Skipped != 1 {
			t.Fatalf("got %+v, %v\n%s", res, err, out.String())
		}
		wantFile(t, d+"/sub/a", "a\n")
		wantNoFile(t, d+"/c")
		return out.String()
	}
	batched, single := run(pt.e), run(alone{pt.e})
	if batched != single {
		t.Fatalf("batched:\n%s\none session each:\n%s", batched, single)
	}
	if !strings.Contains(batched, `{"event":"step_failed","id":"c","step":2,`) || !strings.Contains(batched, `{"event":"change_skipped","id":"d",`) {
		t.Fatalf("the events:\n%s", batched)
	}
}

// TestPipelineFollowedLive runs two operations in one session, the first
// printing lines a while apart, under a LiveLine (the terminal's live line
// follows a step so): the line follows the step Next waits for while it
// runs, and what the step's result holds is unchanged.
func TestPipelineFollowedLive(t *testing.T) {
	pt := newPipeTarget(t)
	steps := []execute.BatchStep{
		login("echo working 1; sleep 1; echo working 2 >&2; sleep 1; echo working 3\n", time.Minute),
		login("echo second\n", time.Minute),
	}
	b := pt.e.Pipeline(context.Background(), steps)
	defer b.Close()
	l := &execute.LiveLine{}
	seen := make(chan []string, 1)
	stop := make(chan struct{})
	go func() {
		var lines []string
		for {
			select {
			case <-stop:
				seen <- lines
				return
			case <-time.After(50 * time.Millisecond):
				if line, _, ok := l.Take(); ok {
					lines = append(lines, line)
				}
			}
		}
	}()
	err := b.Next(execute.WithLive(context.Background(), l))
	close(stop)
	lines := <-seen
	if err != nil {
		t.Fatalf("step 1: %v", err)
	}
	if line, _, ok := l.Take(); ok {
		lines = append(lines, line)
	}
	if got := strings.Join(lines, "|"); !strings.Contains(got, "working 2") || !strings.HasSuffix(got, "working 3") {
		t.Fatalf("the live line followed %q, want working 2 then working 3 last", got)
	}
	// The second step runs with no LiveLine: nothing more reaches the first's.
	if err := b.Next(context.Background()); err != nil {
		t.Fatalf("step 2: %v", err)
	}
	if line, _, ok := l.Take(); ok {
		t.Fatalf("the second step's output %q reached the first step's live line", line)
	}
}
