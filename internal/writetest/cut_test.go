package writetest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zap-go/zap/internal/proctree"
	"github.com/zap-go/zap/internal/scripttest"
	"github.com/zap-go/zap/pkg/events"
	"github.com/zap-go/zap/pkg/plan"
)

// seedEnv, when set, is the seed of TestConnectionCutAt20RandomMoments's
// moments, to run a failure's again.
const seedEnv = "ZAP_WRITETEST_SEED"

const (
	cutFiles = 500
	cuts     = 20
	// stageLimit bounds one run of a stage: a zap-exec that goes on after
	// its connection dropped fails the test instead of hanging it.
	stageLimit = 10 * time.Minute
)

// cutRun is TestConnectionCutAt20RandomMoments's machine: the 500 files'
// directory, the private sshd, and the stages' environment.
type cutRun struct {
	t    *testing.T
	bin  string // the zap binaries (ZAP_TEST_BIN)
	dir  string // the files' directory, root's
	work string // the declaration, plans
	sshd *scripttest.SSHD
	env  []string
}

func fileID(i int) string { return fmt.Sprintf("f%03d", i) }

// content is file i's content, old (generation 0) or new (1): 40 lines
// naming both.
func content(gen, i int) []byte {
	return bytes.Repeat(fmt.Appendf(nil, "generation %d of file %d\n", gen, i), 40)
}

// TestConnectionCutAt20RandomMoments applies 500 file updates (content,
// mode and owner, as root through sudo) with zap-exec over the loopback
// sshd, and drops its connection at 20 random moments of it: each cut
// ends a run, and the next run is the plan of what is left. The even cuts
// kill the connection's sshd processes and everything below them at once,
// the odd ones only the sshd processes, leaving what the sessions ran
// orphaned to find its pipes closed (the test waits for it to end). After
// each cut: every file holds its old or its new content whole, root's, no
// staged name in its place; the events say the step in flight failed
// transient, then name the changes the target had already been sent (at
// most the write-ahead window, 32) as failed transient with their outcome
// unknown, and every later change skipped; every change reported ok was
// written, and none after the unknown ones; and the next plan reads as
// changes exactly the files still old. The last plan's apply, uncut,
// converges them all and leaves nothing staged.
//
// The moments come from a seed the test logs ($ZAP_WRITETEST_SEED runs
// the same ones again): which of the 500 changes' start to wait for, and
// how long after it to cut. The time a target takes is its own, so the
// same seed picks the same moments, not the same interleaving.
func TestConnectionCutAt20RandomMoments(t *testing.T) {
	c := newCutRun(t)
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv(seedEnv); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("%s=%q: not a seed", seedEnv, s)
		}
	}
	t.Logf("seed %d (%s=%d runs these moments again)", seed, seedEnv, seed)
	rnd := mrand.New(mrand.NewPCG(seed, seed))
	at := make([]int, cuts)
	for k := range at {
		at[k] = rnd.IntN(cutFiles)
	}
	slices.Sort(at)

	began := time.Now()
	ids := c.plan()
	if len(ids) != cutFiles {
		t.Fatalf("the plan holds %d changes, want %d", len(ids), cutFiles)
	}
	order := ids
	step := 50 * time.Millisecond // a change's time, until one is measured
	landed := 0
	for k := range cuts {
		// The change to cut after: the k-th moment's, or the first left.
		done := cutFiles - len(ids)
		wait := max(at[k]-done, 0)
		after := time.Duration(rnd.Int64N(int64(2*step) + 1))
		orphans := k%2 == 1
		r := c.apply(&cut{at: ids[min(wait, len(ids)-1)], after: after, orphans: orphans})
		if r.perChange > 0 {
			step = r.perChange
		}
		if r.exit == 0 {
			t.Logf("cut %d (at change %d, %s after its start): the run ended first", k, done+wait, after)
			ids = nil
			break
		}
		landed++
		failed, unknown := c.checkCut(k, ids, r)
		t.Logf("cut %d (at change %d, %s after its start, %s): change %d failed, the next %d unknown", k, done+wait, after, cutKind(orphans), done+failed, unknown)
		// The next plan reads what stands: the files still old.
		ids = c.plan()
		c.wantChanges(k, order, ids)
		if len(ids) == 0 {
			break
		}
	}
	if len(ids) > 0 {
		if r := c.apply(nil); r.exit != 0 {
			t.Fatalf("the apply after the cuts exited %d:\n%s", r.exit, r.stderr)
		}
	}
	c.onlyFiles("after the last apply", false)
	for i := range cutFiles {
		wantFile(t, filepath.Join(c.dir, fileID(i)), content(1, i), 0o644, 0, 0)
	}
	if rest := c.plan(); len(rest) != 0 {
		t.Fatalf("after the last apply the plan still changes %v", rest)
	}
	t.Logf("%d of %d cuts landed mid-run; the test's runs took %s", landed, cuts, time.Since(began).Round(time.Millisecond))
	if landed < cuts/2 {
		t.Fatalf("only %d of %d cuts landed before a run ended: the test proved little", landed, cuts)
	}
}

func cutKind(orphans bool) string {
	if orphans {
		return "the connection's sshd processes killed, their commands orphaned"
	}
	return "the connection's sshd processes and their commands killed"
}

// newCutRun sets up the directory of 500 root files holding their old
// content (mode 600), the sshd, the stages' environment, and the
// declaration of the files' new content (mode 644, root's), or skips
// saying why.
func newCutRun(t *testing.T) *cutRun {
	w := setup(t)
	bin := os.Getenv("ZAP_TEST_BIN")
	if bin == "" {
		t.Skip("skipped: runs the zap binaries: set ZAP_TEST_BIN (make testbin builds them into bin/test)")
	}
	s := scripttest.StartSSHD(t)
	c := &cutRun{t: t, bin: bin, dir: filepath.Join(w.base, "files"), work: t.TempDir(), sshd: s}
	must(t, os.Mkdir(c.dir, 0o755))
	for i := range cutFiles {
		must(t, os.WriteFile(filepath.Join(c.dir, fileID(i)), content(0, i), 0o600))
	}
	home, zapHome := filepath.Join(c.work, "home"), filepath.Join(c.work, "zaphome")
	must(t, os.Mkdir(home, 0o700))
	must(t, os.Mkdir(zapHome, 0o700))
	c.env = []string{"PATH=" + s.Bin + ":/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + home, "ZAP_HOME=" + zapHome, "LC_ALL=C"}

	type file struct {
		ID      string            `json:"id"`
		Type    string            `json:"type"`
		Path    string            `json:"path"`
		Content map[string]string `json:"content"`
		Mode    string            `json:"mode"`
		Owner   string            `json:"owner"`
	}
	decl := struct {
		Format    string         `json:"format"`
		Target    map[string]any `json:"target"`
		Resources []file         `json:"resources"`
	}{Format: "zap.declaration/1", Target: map[string]any{"host": "127.0.0.1", "port": s.Port, "user": scripttest.TestAccount}}
	for i := range cutFiles {
		decl.Resources = append(decl.Resources, file{ID: fileID(i), Type: "file", Path: filepath.Join(c.dir, fileID(i)),
			Content: map[string]string{"type": "inline", "content": string(content(1, i))}, Mode: "644", Owner: "root"})
	}
	b, err := json.Marshal(decl)
	must(t, err)
	must(t, os.WriteFile(filepath.Join(c.work, "decl.json"), b, 0o600))
	return c
}

// plan runs zap-detect and zap-plan on the declaration into plan.json,
// returning its changes' ids in order.
func (c *cutRun) plan() []string {
	c.t.Helper()
	obs := c.stage("zap-detect", "decl.json")
	must(c.t, os.WriteFile(filepath.Join(c.work, "obs.json"), obs, 0o600))
	out := c.stage("zap-plan", "obs.json")
	must(c.t, os.WriteFile(filepath.Join(c.work, "plan.json"), out, 0o600))
	var p plan.Plan
	if err := json.Unmarshal(out, &p); err != nil {
		c.t.Fatalf("zap-plan's plan: %v", err)
	}
	ids := make([]string, len(p.Changes))
	for i, ch := range p.Changes {
		ids[i] = ch.ID
	}
	return ids
}

// stage runs a stage on the file arg and returns its stdout, failing the
// test when it fails.
func (c *cutRun) stage(name, arg string) []byte {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), stageLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(c.bin, name), arg)
	cmd.Env, cmd.Dir = c.env, c.work
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		c.t.Fatalf("%s %s: %v\n%s", name, arg, err, stderr.String())
	}
	return out
}

// cut is when a run's connection drops: after the event step_started of
// the change at, and after more; orphans kills only the connections' sshd
// processes (KillConnections), else them and their sessions' commands
// (KillSessions).
type cut struct {
	at      string
	after   time.Duration
	orphans bool
}

// applied is a zap-exec run: its exit code, events and stderr, and the
// time between its changes' starts before the cut (0: unmeasured).
type applied struct {
	exit      int
	events    []*events.Event
	stderr    string
	perChange time.Duration
}

// apply runs zap-exec --wetrun on plan.json, reading its events as they
// come, and drops the connection as x says (nil: never). A cut whose
// commands were left running is waited out before it returns.
func (c *cutRun) apply(x *cut) applied {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), stageLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(c.bin, "zap-exec"), "--wetrun", "plan.json")
	cmd.Env, cmd.Dir = c.env, c.work
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	must(c.t, err)
	must(c.t, cmd.Start())
	var r applied
	var orphans []proctree.Proc
	var first time.Time
	starts := 0
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		e, err := events.Read(sc.Bytes())
		if err != nil {
			c.t.Fatalf("zap-exec wrote %q: %v", sc.Text(), err)
		}
		r.events = append(r.events, e)
		if e.Event != events.StepStarted || x == nil {
			continue
		}
		if starts++; starts == 1 {
			first = time.Now()
		}
		if e.ID == x.at {
			if starts > 1 {
				r.perChange = time.Since(first) / time.Duration(starts-1)
			}
			time.Sleep(x.after)
			if x.orphans {
				orphans = c.sshd.KillConnections()
			} else {
				c.sshd.KillSessions()
			}
			x = nil
		}
	}
	err = cmd.Wait()
	if ctx.Err() != nil {
		c.t.Fatalf("zap-exec still ran after %s (a dropped connection must end it), %d events read:\n%s", stageLimit, len(r.events), stderr.String())
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.exit = ee.ExitCode()
	case err != nil:
		c.t.Fatal(err)
	}
	r.stderr = stderr.String()
	if r.exit > 1 {
		c.t.Fatalf("zap-exec refused the plan (exit %d):\n%s", r.exit, r.stderr)
	}
	c.waitOut(orphans)
	return r
}

// waitOut waits until none of ps runs: what a dropped connection's
// sessions ran ends on its own.
func (c *cutRun) waitOut(ps []proctree.Proc) {
	c.t.Helper()
	deadline := time.Now().Add(stageLimit)
	for _, p := range ps {
		for p.Alive() {
			if time.Now().After(deadline) {
				c.t.Fatalf("process %d, left running by a dropped connection, still runs after %s", p.PID, stageLimit)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// onlyFiles fails the test when the directory holds anything but the 500
// files, and a write's staged .zap.* file when staged is false (a write
// killed midway may leave one, which the file's next write removes).
func (c *cutRun) onlyFiles(when string, staged bool) {
	c.t.Helper()
	names, err := os.ReadDir(c.dir)
	must(c.t, err)
	files := 0
	for _, n := range names {
		switch {
		case strings.HasPrefix(n.Name(), "f") && len(n.Name()) == 4:
			files++
		case !staged || !strings.HasPrefix(n.Name(), ".zap."):
			c.t.Fatalf("%s, %s is in the directory", when, n.Name())
		}
	}
	if files != cutFiles {
		c.t.Fatalf("%s, the directory holds %d files, want %d", when, files, cutFiles)
	}
}

// checkCut checks the files and events of cut k, a run whose changes
// were ids in order, and returns the index in ids of the change that
// failed and how many after it were reported unknown.
func (c *cutRun) checkCut(k int, ids []string, r applied) (int, int) {
	c.t.Helper()
	failed, unknown := c.checkEvents(k, ids, r)
	c.onlyFiles(fmt.Sprintf("after cut %d", k), true)
	for i, id := range ids {
		isNew := c.isNew(k, id)
		st := lstat(c.t, filepath.Join(c.dir, id))
		switch {
		case isNew && (st.Uid != 0 || st.Gid != 0 || st.Mode&0o7777 != 0o644):
			c.t.Fatalf("cut %d: %s holds its new content, and is %o %d:%d, want 644 0:0", k, id, st.Mode&0o7777, st.Uid, st.Gid)
		case i < failed && !isNew:
			c.t.Fatalf("cut %d: %s (change %d) was reported ok before change %d failed, and holds its old content", k, id, i, failed)
		case i > failed+unknown && isNew:
			c.t.Fatalf("cut %d: %s (change %d) was written, after change %d failed, %d were unknown and the rest were reported skipped", k, id, i, failed, unknown)
		}
	}
	return failed, unknown
}

// isNew reports whether the file id holds its new content, failing the
// test when it holds neither its old nor its new content whole.
func (c *cutRun) isNew(k int, id string) bool {
	c.t.Helper()
	n, _ := strconv.Atoi(strings.TrimPrefix(id, "f"))
	got, err := os.ReadFile(filepath.Join(c.dir, id))
	must(c.t, err)
	switch {
	case bytes.Equal(got, content(1, n)):
		return true
	case bytes.Equal(got, content(0, n)):
		return false
	}
	c.t.Fatalf("cut %d: %s holds %d bytes, neither its old nor its new content whole", k, id, len(got))
	return false
}

// checkEvents checks cut k's events: changes ok in order up to one whose
// step failed transient, then at most window changes failed transient
// with their outcome unknown, then every other change skipped and not
// started, and a run_failed that counts them. It returns the failed
// change's index and how many were unknown.
func (c *cutRun) checkEvents(k int, ids []string, r applied) (int, int) {
	c.t.Helper()
	fail := func(format string, args ...any) {
		c.t.Helper()
		var lines []string
		for _, e := range r.events {
			b, _ := e.Marshal()
			lines = append(lines, string(b))
		}
		if len(lines) > 12 {
			lines = append(lines[:6], append([]string{"…"}, lines[len(lines)-6:]...)...)
		}
		c.t.Fatalf("cut %d: %s\nevents:\n%s\nstderr:\n%s", k, fmt.Sprintf(format, args...), strings.Join(lines, "\n"), r.stderr)
	}
	if r.exit != 1 {
		fail("zap-exec exited %d, want 1", r.exit)
	}
	ends := map[string]*events.Event{}
	var stepFailed *events.Event
	for _, e := range r.events {
		switch e.Event {
		case events.ChangeOK, events.ChangeFailed, events.ChangeSkipped:
			if _, ok := ends[e.ID]; ok {
				fail("change %s ended twice", e.ID)
			}
			ends[e.ID] = e
		case events.StepFailed:
			if stepFailed == nil {
				stepFailed = e
			} else if !strings.Contains(e.Error, unknownText) {
				fail("step %s/%d failed, after %s/%d, and not unknown: %s", e.ID, e.Step, stepFailed.ID, stepFailed.Step, e.Error)
			}
		}
	}
	end := func(id string) events.Type {
		if e := ends[id]; e != nil {
			return e.Event
		}
		return ""
	}
	failed, unknown := -1, 0
	for i, id := range ids {
		want := events.ChangeOK
		switch {
		case failed >= 0 && unknown == i-failed-1 && end(id) == events.ChangeFailed && strings.Contains(ends[id].Error, unknownText):
			unknown++
			want = events.ChangeFailed
		case failed >= 0:
			want = events.ChangeSkipped
		case end(id) == events.ChangeFailed:
			failed, want = i, events.ChangeFailed
		}
		if end(id) != want {
			fail("change %d (%s) ended %q, want %q", i, id, end(id), want)
		}
	}
	if failed < 0 {
		fail("no change failed")
	}
	if unknown > window {
		fail("%d changes after the failed one were unknown, more than the window of %d", unknown, window)
	}
	if stepFailed == nil || stepFailed.ID != ids[failed] || stepFailed.Code != events.Transient {
		fail("the failed change %s has no step failed transient", ids[failed])
	}
	for _, e := range r.events {
		if e.Event == events.ChangeFailed && e.Code != events.Transient {
			fail("change %s failed %s, want transient", e.ID, e.Code)
		}
		if (e.Event == events.ChangeStarted || e.Event == events.StepStarted || e.Event == events.StepOK) && end(e.ID) == events.ChangeSkipped {
			fail("change %s was reported skipped, and %s", e.ID, e.Event)
		}
	}
	last := r.events[len(r.events)-1]
	if last.Event != events.RunFailed || last.OK != failed || last.Failed != 1+unknown || last.Skipped != len(ids)-failed-1-unknown {
		fail("the run ended %s ok=%d failed=%d skipped=%d, want run_failed ok=%d failed=%d skipped=%d",
			last.Event, last.OK, last.Failed, last.Skipped, failed, 1+unknown, len(ids)-failed-1-unknown)
	}
	return failed, unknown
}

// window is the most steps a run sends the target ahead of their turn
// (internal/sshhost's windowSteps), and unknownText what a change the
// target was sent before its connection dropped says it is.
const (
	window      = 32
	unknownText = "whether it ran is unknown"
)

// wantChanges checks the plan made after cut k reads as changes exactly
// the files still old, in the order they were first planned in.
func (c *cutRun) wantChanges(k int, order, rest []string) {
	c.t.Helper()
	var want []string
	for _, id := range order {
		if !c.isNew(k, id) {
			want = append(want, id)
		}
	}
	if !slices.Equal(rest, want) {
		c.t.Fatalf("cut %d: the plan after the cut changes %d files, %d hold their old content:\nplan: %v\nold:  %v", k, len(rest), len(want), rest, want)
	}
}
