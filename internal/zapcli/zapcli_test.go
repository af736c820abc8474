package zapcli

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zeebo/blake3"

	"github.com/zap-go/zap/internal/lock"
	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/internal/planner"
	"github.com/zap-go/zap/internal/state"
	"github.com/zap-go/zap/pkg/canon"
	"github.com/zap-go/zap/pkg/events"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// These tests run zap's commands against fake stages: shell scripts that
// print the documents a test prepared, so the front end's logic (the review
// gate, exit codes, the observe pass, --json) is checked apart from the
// real stages. The end-to-end scripts in cmd/zap run the real ones.

const fakeStage = `#!/bin/sh
name=$(basename "$0")
cat > /dev/null
echo "$@" >> "$FAKE/$name.args"
n=$(cat "$FAKE/$name.count" 2>/dev/null || echo 0)
n=$((n+1))
echo $n > "$FAKE/$name.count"
out="$FAKE/$name.$n"
[ -e "$out" ] || out="$FAKE/$name"
code=0
[ -e "$out.code" ] && code=$(cat "$out.code")
[ -e "$out.err" ] && cat "$out.err" >&2
[ -e "$out" ] && cat "$out"
exit $code
`

// TestMain doubles as the fake zap-eval: the evaluator is held to the pin
// and a script is refused, so the fake evaluator is a copy of this test
// binary, which acts as the fake stage when run as zap-eval.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "zap-eval" {
		os.Exit(fakeEval(os.Getenv("FAKE")))
	}
	os.Exit(m.Run())
}

// fakeEval is fakeStage in Go, for zap-eval.
func fakeEval(dir string) int {
	const name = "zap-eval"
	n, _ := strconv.Atoi(strings.TrimSpace(readOr(filepath.Join(dir, name+".count"), "0")))
	n++
	os.WriteFile(filepath.Join(dir, name+".count"), []byte(strconv.Itoa(n)+"\n"), 0o644)
	out := filepath.Join(dir, name+"."+strconv.Itoa(n))
	if _, err := os.Stat(out); err != nil {
		out = filepath.Join(dir, name)
	}
	code, _ := strconv.Atoi(strings.TrimSpace(readOr(out+".code", "0")))
	os.Stderr.WriteString(readOr(out+".err", ""))
	if p, err := os.ReadFile(out + ".panic"); err == nil {
		// A real panic, as the Go runtime reports one: exit 2.
		panic(string(p))
	}
	os.Stdout.WriteString(readOr(out, ""))
	return code
}

func readOr(path, or string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return or
	}
	return string(b)
}

type fake struct {
	t    *testing.T
	bin  string // the stages
	dir  string // what they print
	home string
}

func newFake(t *testing.T) *fake {
	t.Helper()
	root := t.TempDir()
	f := &fake{t: t, bin: filepath.Join(root, "bin"), dir: filepath.Join(root, "data"), home: filepath.Join(root, "home")}
	for _, d := range []string{f.bin, f.dir, f.home} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"zap-detect", "zap-plan", "zap-exec"} {
		if err := os.WriteFile(filepath.Join(f.bin, name), []byte(fakeStage), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.bin, "zap-eval"), self, 0o755); err != nil {
		t.Fatal(err)
	}
	// The config is ./zap.ts (the fake zap-eval doesn't read it), and its
	// lock pins that zap-eval.
	t.Chdir(root)
	if err := os.WriteFile("zap.ts", []byte("export default (zap) => {};\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := blake3.Sum256(self)
	if err := lock.Write("zap.lock", &lock.Lock{Toolchain: &lock.Toolchain{Blake3: hex.EncodeToString(sum[:])}}); err != nil {
		t.Fatal(err)
	}
	return f
}

// stage sets what a stage prints on its calls from now on: outputs[0] on the
// first call, outputs[1] on the second, the last one after that.
func (f *fake) stage(name string, code int, stderr string, outputs ...string) {
	f.t.Helper()
	matches, _ := filepath.Glob(filepath.Join(f.dir, name+".*"))
	for _, m := range matches {
		os.Remove(m)
	}
	os.Remove(filepath.Join(f.dir, name))
	for i, out := range outputs {
		path := filepath.Join(f.dir, name+"."+strconv.Itoa(i+1))
		if i == len(outputs)-1 {
			path = filepath.Join(f.dir, name)
		}
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			f.t.Fatal(err)
		}
	}
	last := filepath.Join(f.dir, name)
	if len(outputs) == 0 {
		os.WriteFile(last, nil, 0o644)
	}
	if code != 0 {
		os.WriteFile(last+".code", []byte(strconv.Itoa(code)), 0o644)
	}
	if stderr != "" {
		os.WriteFile(last+".err", []byte(stderr), 0o644)
	}
}

func (f *fake) run(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	a := f.app(&out, &errb)
	code = a.main(context.Background(), args)
	return code, out.String(), errb.String()
}

// app is the zap f runs, writing to stdout and stderr.
func (f *fake) app(stdout, stderr io.Writer) *app {
	return &app{
		stdin:  strings.NewReader(""),
		stdout: stdout,
		stderr: stderr,
		getenv: func(k string) string {
			if k == "HOME" {
				return f.home
			}
			return ""
		},
		lookupEnv: func(string) (string, bool) { return "", false },
		// GORACE: a -race zap-eval (this test binary) would sleep 1 s at exit.
		environ:  []string{"FAKE=" + f.dir, "PATH=/usr/bin:/bin", "GORACE=atexit_sleep_ms=0"},
		now:      func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
		stageDir: f.bin,
	}
}

const declJSON = `{"format":"zap.declaration/1","target":{"local":true},"resources":[
{"id":"d","type":"directory","path":"~/d"},
{"id":"s","type":"script","check":"test -e ~/d/s","run":"touch ~/d/s","depends_on":["d"]}]}`

// observe makes observations of declJSON with the verdicts given for d and s.
func observe(t *testing.T, d, s observation.Verdict) string {
	t.Helper()
	res := func(id string, v observation.Verdict) string {
		r := observation.Resource{ID: id, Verdict: v}
		if v == observation.Undetermined {
			r.Reason = "open: permission denied"
		}
		b, _ := json.Marshal(r)
		return string(b)
	}
	doc := `{"format":"zap.observations/1","declaration":` + declJSON + `,
		"context":{"target":"local","user":"alice","home":"/home/alice"},"batches":[{"lane":"login","queries":2}],
		"resources":[` + res("d", d) + `,` + res("s", s) + `]}`
	o, err := observation.Read([]byte(mustCanon(t, doc)))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := o.Encode()
	return string(b) + "\n"
}

// planFor is the plan zap-plan would make of observations.
func planFor(t *testing.T, obs string) (string, string) {
	t.Helper()
	o, err := observation.Read([]byte(strings.TrimSpace(obs)))
	if err != nil {
		t.Fatal(err)
	}
	p, err := planner.Plan(o)
	if err != nil {
		t.Fatal(err)
	}
	if p.Hash, err = plan.Hash(p, ops.Script); err != nil {
		t.Fatal(err)
	}
	b, _ := p.Encode()
	return string(b) + "\n", p.Hash
}

func mustCanon(t *testing.T, doc string) string {
	t.Helper()
	b, err := canon.Transform([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func eventLines(evs ...events.Event) string {
	var b strings.Builder
	for _, e := range evs {
		line, _ := e.Marshal()
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}

var (
	absent    = observation.Absent
	converged = observation.Converged
	held      = observation.Undetermined
)

// setPass sets zap-eval, zap-detect (first pass, then the reading again)
// and zap-plan for one command, and returns the plan_hash.
func (f *fake) setPass(first, again string) string {
	f.stage("zap-eval", 0, "", declJSON)
	if again == "" {
		f.stage("zap-detect", 0, "", first)
	} else {
		f.stage("zap-detect", 0, "", first, again)
	}
	p, hash := planFor(f.t, first)
	f.stage("zap-plan", 0, "", p)
	return hash
}

func okRun(hash string) string {
	return eventLines(
		events.Event{Event: events.RunStarted, Format: events.Format, PlanHash: hash, Changes: 2},
		events.Event{Event: events.ChangeStarted, ID: "d", Type: "directory", Action: "create"},
		events.Event{Event: events.ChangeOK, ID: "d", Type: "directory"},
		events.Event{Event: events.ChangeStarted, ID: "s", Type: "script", Action: "create"},
		events.Event{Event: events.ChangeOK, ID: "s", Type: "script"},
		events.Event{Event: events.RunOK, OK: 2},
	)
}

func want(t *testing.T, what string, code, wantCode int, stdout, stderr string) {
	t.Helper()
	if code != wantCode {
		t.Fatalf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", what, code, wantCode, stdout, stderr)
	}
}

func TestPlanAndApplyExitCodes(t *testing.T) {
	f := newFake(t)
	f.setPass(observe(t, absent, absent), "")
	code, out, errs := f.run("plan")
	want(t, "plan with changes", code, 0, out, errs)
	if !strings.Contains(out, "Plan: 2 change(s)") {
		t.Errorf("plan:\n%s", out)
	}
	code, out, errs = f.run("apply")
	want(t, "dry apply with changes", code, 2, out, errs)

	f.setPass(observe(t, converged, converged), "")
	code, out, errs = f.run("apply")
	want(t, "dry apply converged", code, 0, out, errs)
	code, out, errs = f.run("plan")
	want(t, "plan converged", code, 0, out, errs)

	f.setPass(observe(t, held, absent), "")
	code, out, errs = f.run("apply")
	want(t, "dry apply with a hold", code, 1, out, errs)
	code, out, errs = f.run("plan")
	want(t, "plan with a hold", code, 1, out, errs)
	code, out, errs = f.run("detect")
	want(t, "detect with a hold", code, 1, out, errs)
	code, out, errs = f.run("status")
	want(t, "status after a hold", code, 1, out, errs)

	f.setPass(observe(t, converged, absent), "")
	code, out, errs = f.run("detect")
	want(t, "detect", code, 0, out, errs)
	code, out, errs = f.run("status")
	want(t, "status", code, 0, out, errs)
}

func TestWetrunGate(t *testing.T) {
	f := newFake(t)
	first := observe(t, absent, absent)
	hash := f.setPass(first, observe(t, converged, converged))
	f.stage("zap-exec", 0, "", okRun(hash))

	code, out, errs := f.run("apply", "--wetrun")
	want(t, "cold wetrun", code, 2, out, errs)
	if !strings.HasPrefix(out, "REFUSED — no preview yet") || f.calls("zap-exec") != 0 {
		t.Fatalf("cold wetrun:\n%s", out)
	}

	f.setPass(first, observe(t, converged, converged))
	code, out, errs = f.run("apply", "--wetrun")
	want(t, "wetrun after the refusal", code, 0, out, errs)
	if !strings.Contains(out, "all converged") || f.calls("zap-exec") != 1 {
		t.Fatalf("wetrun:\n%s", out)
	}
	r := f.report()
	if r.Command != state.CmdObserve || r.Preview || r.PlanHash != "" {
		t.Fatalf("the last word is %+v", r)
	}

	// The preview is spent.
	f.setPass(first, "")
	code, out, errs = f.run("apply", "--wetrun")
	want(t, "second wetrun", code, 2, out, errs)
	if !strings.HasPrefix(out, "REFUSED — the last run was not a preview") || f.calls("zap-exec") != 1 {
		t.Fatalf("second wetrun:\n%s", out)
	}

	// --expect-plan: another hash refuses, the plan's own executes.
	f.setPass(first, "")
	code, out, errs = f.run("apply", "--wetrun", "--expect-plan", strings.Repeat("0", 64))
	want(t, "expect-plan mismatch", code, 2, out, errs)
	f.setPass(first, observe(t, converged, converged))
	f.run("detect")
	f.setPass(first, observe(t, converged, converged))
	f.stage("zap-exec", 0, "", okRun(hash))
	code, out, errs = f.run("apply", "--wetrun", "--expect-plan", hash)
	want(t, "expect-plan match", code, 0, out, errs)
	if f.calls("zap-exec") != 1 {
		t.Fatal("zap-exec didn't run once")
	}
}

func (f *fake) calls(name string) int {
	b, err := os.ReadFile(filepath.Join(f.dir, name+".count"))
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

func (f *fake) report() *state.Report {
	f.t.Helper()
	s, _ := state.Open(func(k string) string {
		if k == "HOME" {
			return f.home
		}
		return ""
	})
	abs, _ := filepath.Abs("zap.ts")
	l, err := s.Load(abs, "local")
	if err != nil || l == nil {
		f.t.Fatalf("no report: %v", err)
	}
	return l.Report
}

func TestWetrunResidualFailureObserve(t *testing.T) {
	f := newFake(t)
	first := observe(t, absent, absent)
	hash := f.setPass(first, "")
	f.run("apply")

	// The script still reads absent after its run: RESIDUAL, exit 1.
	f.setPass(first, observe(t, converged, absent))
	f.stage("zap-exec", 0, "", okRun(hash))
	code, out, errs := f.run("apply", "--wetrun")
	want(t, "residual", code, 1, out, errs)
	if !strings.Contains(out, "RESIDUAL — 1 resource(s)") || !strings.Contains(out, "  s  script: absent") {
		t.Fatalf("residual:\n%s", out)
	}

	// A change that failed: listed, exit 1, not residual.
	f.setPass(first, "")
	f.run("apply")
	f.setPass(first, observe(t, absent, absent))
	exit1 := 1
	f.stage("zap-exec", 1, "", eventLines(
		events.Event{Event: events.RunStarted, Format: events.Format, PlanHash: hash, Changes: 2},
		events.Event{Event: events.ChangeStarted, ID: "d", Type: "directory"},
		events.Event{Event: events.StepFailed, ID: "d", Step: 1, Error: "mkdir: denied", Code: events.Permission, Exit: &exit1},
		events.Event{Event: events.ChangeFailed, ID: "d", Type: "directory", Error: "dir ~/d exited 1", Code: events.Permission},
		events.Event{Event: events.ChangeSkipped, ID: "s", Type: "script", Reason: "an earlier change failed"},
		events.Event{Event: events.RunFailed, Failed: 1, Skipped: 1},
	))
	code, out, errs = f.run("apply", "--wetrun")
	want(t, "failed change", code, 1, out, errs)
	if !strings.Contains(out, "  failed   d  directory: dir ~/d exited 1") || strings.Contains(out, "RESIDUAL") {
		t.Fatalf("failed change:\n%s", out)
	}
	// The step's error is said under the change's only because it differs;
	// the summary counts what didn't run; with no terminal,
	// stderr has each change's start as a plain line.
	if !strings.Contains(out, "      step 1 failed (exit 1): mkdir: denied\n") ||
		!strings.Contains(out, "; not converged: 1 change(s) failed, 1 skipped (see above)\n") || strings.Contains(out, "none residual") {
		t.Errorf("failed change:\n%s", out)
	}
	if !strings.Contains(errs, "  started  d  directory\n") || strings.Contains(errs, "\r") || strings.Contains(errs, "\x1b") {
		t.Errorf("failed change's stderr:\n%q", errs)
	}

	// zap-exec stops after its first event, saying why with a hint: the
	// run didn't finish, said with the hint, and the target is read again.
	f.setPass(first, "")
	f.run("apply")
	f.setPass(first, observe(t, absent, absent))
	f.stage("zap-exec", 2, "zap-exec: the plan went stale\nhint: run zap plan again\n", eventLines(
		events.Event{Event: events.RunStarted, Format: events.Format, PlanHash: hash, Changes: 2},
	))
	code, out, errs = f.run("apply", "--wetrun")
	want(t, "exec stopped", code, 1, out, errs)
	if !strings.Contains(errs, "error: the run didn't finish: the plan went stale\nhint: run zap plan again\n") {
		t.Errorf("exec stopped: stderr %q", errs)
	}

	// The reading again fails: said, exit 1.
	f.setPass(first, "")
	f.run("apply")
	f.setPass(first, "")
	f.stage("zap-detect", 0, "", first, "")
	os.WriteFile(filepath.Join(f.dir, "zap-detect.code"), []byte("1"), 0o644)
	os.WriteFile(filepath.Join(f.dir, "zap-detect.err"), []byte("zap-detect: connection lost\n"), 0o644)
	f.stage("zap-exec", 0, "", okRun(hash))
	code, out, errs = f.run("apply", "--wetrun")
	want(t, "observe failed", code, 1, out, errs)
	if !strings.Contains(out, "NOT OBSERVED — reading the target again failed") || !strings.Contains(out, "connection lost") {
		t.Fatalf("observe failed:\n%s", out)
	}
}

func TestWetrunJSON(t *testing.T) {
	f := newFake(t)
	first := observe(t, absent, absent)
	hash := f.setPass(first, "")
	f.run("apply")
	f.setPass(first, observe(t, converged, absent))
	f.stage("zap-exec", 0, "", okRun(hash))
	code, out, errs := f.run("apply", "--wetrun", "--json")
	want(t, "json", code, 1, out, errs)
	if errs != "" {
		t.Errorf("stderr under --json: %s", errs)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	var last *events.Event
	for _, l := range lines {
		e, err := events.Read([]byte(l))
		if err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		last = e
	}
	if last.Event != events.Done || *last.Exit != 1 || last.Residual != 1 || last.OK != 2 {
		t.Fatalf("done: %+v", last)
	}
	if !strings.Contains(out, `{"event":"residual","id":"s","type":"script","reason":"absent"}`) {
		t.Errorf("no residual event:\n%s", out)
	}

	// A refusal under --json ends the wetrun before its first event:
	// stdout empty, the report on stderr, exit 2.
	f.setPass(first, "")
	code, out, errs = f.run("apply", "--wetrun", "--json")
	want(t, "json refusal", code, 2, out, errs)
	if !strings.HasPrefix(errs, "REFUSED") {
		t.Fatalf("refusal: stderr %q", errs)
	}
	if out != "" {
		t.Fatalf("refusal: want stdout empty, got\n%s", out)
	}
}

func TestStageFailures(t *testing.T) {
	f := newFake(t)
	f.stage("zap-eval", 2, "zap-eval: zap.ts:3: resource \"d\": path: \"x\u0007\" must be absolute\nhint: write ~/x\n")
	code, out, errs := f.run("plan")
	want(t, "eval exit 2", code, 2, out, errs)
	if errs != "error: zap.ts:3: resource \"d\": path: \"x<U+0007>\" must be absolute\nhint: write ~/x\n" {
		t.Errorf("stderr %q", errs)
	}
	// A message of several lines and a hint of two, as every stage
	// prints them (exit.Write): zap prints them as its own, the same shape.
	f.stage("zap-eval", 2, "zap-eval: 2 problems in the config:\n  zap.ts:3: a\n      at f (zap.ts:3)\nhint: fix zap.ts\n  then run zap plan\n")
	code, out, errs = f.run("plan")
	want(t, "eval exit 2, several lines", code, 2, out, errs)
	if errs != "error: 2 problems in the config:\n  zap.ts:3: a\n      at f (zap.ts:3)\nhint: fix zap.ts\n  then run zap plan\n" {
		t.Errorf("stderr %q", errs)
	}
	f.stage("zap-eval", 0, "", declJSON)
	f.stage("zap-detect", 1, "zap-detect: read ~/d: input/output error\n")
	code, out, errs = f.run("detect")
	want(t, "detect exit 1", code, 1, out, errs)
	f.stage("zap-detect", 139, "segfault\n")
	code, out, errs = f.run("detect")
	want(t, "detect crash", code, 1, out, errs)
	if !strings.HasPrefix(errs, "error: zap-detect crashed (exit status 139):\n  segfault\n") {
		t.Errorf("crash: %q", errs)
	}
	f.stage("zap-detect", 0, "", "not json")
	code, out, errs = f.run("detect")
	want(t, "detect garbage", code, 1, out, errs)
	if !strings.HasPrefix(errs, "error: zap-detect wrote observations zap can't read") {
		t.Errorf("garbage: %q", errs)
	}
	os.Remove(filepath.Join(f.bin, "zap-detect"))
	code, out, errs = f.run("detect")
	want(t, "no stage", code, 1, out, errs)
	if !strings.Contains(errs, "error: can't run zap-detect") {
		t.Errorf("missing stage: %q", errs)
	}
	code, out, errs = f.run("config", "validate")
	want(t, "validate", code, 0, out, errs)
	if out != "ok: 2 resource(s)\n" {
		t.Errorf("validate: %q", out)
	}
}

// A stage that panics exits 2, as the Go runtime has it, after a warning
// of its own: zap reads the runtime's report, not an input error, and says
// the stage crashed, exit 1.
func TestStagePanics(t *testing.T) {
	f := newFake(t)
	f.stage("zap-eval", 0, "zap-eval: warning: a note first\n")
	os.WriteFile(filepath.Join(f.dir, "zap-eval.panic"), []byte("index out of range"), 0o644)
	code, out, errs := f.run("config", "validate")
	want(t, "eval panic", code, 1, out, errs)
	if !strings.HasPrefix(errs, "error: zap-eval crashed (exit status 2):\n  warning: a note first\n  panic: index out of range\n") ||
		!strings.Contains(errs, "\n  goroutine 1 [running]:\n") ||
		!strings.HasSuffix(errs, "\nhint: a crash is a bug in zap-eval: please report it with the lines above\n") {
		t.Errorf("stderr:\n%s", errs)
	}
}

func TestToolchainPin(t *testing.T) {
	f := newFake(t)
	f.stage("zap-eval", 0, "", declJSON)
	pinned := readOr("zap.lock", "")

	// No lock: every command that evaluates refuses, saying to run zap lock.
	os.Remove("zap.lock")
	for _, args := range [][]string{{"plan"}, {"apply"}, {"apply", "--wetrun"}, {"detect"}, {"status"}, {"config", "validate"}} {
		code, out, errs := f.run(args...)
		want(t, strings.Join(args, " ")+" with no lock", code, 2, out, errs)
		if errs != "error: no toolchain pin: zap.lock doesn't exist\nhint: run zap lock to pin the zap-eval this config is evaluated with\n" {
			t.Errorf("%v with no lock: %q", args, errs)
		}
	}
	if n := f.calls("zap-eval"); n != 0 {
		t.Errorf("zap-eval ran %d times with no lock", n)
	}
	// A lock with no pin.
	os.WriteFile("zap.lock", []byte(`{"format":"zap.lock/1","entries":[]}`), 0o644)
	code, out, errs := f.run("plan")
	want(t, "no pin", code, 2, out, errs)
	if !strings.HasPrefix(errs, "error: no toolchain pin: zap.lock pins no zap-eval\n") {
		t.Errorf("no pin: %q", errs)
	}

	// zap lock pins it, and says what it replaced when the pin moved.
	code, out, errs = f.run("lock")
	want(t, "lock", code, 0, out, errs)
	sum := hexOf(t, filepath.Join(f.bin, "zap-eval"))
	if out != "pinned zap-eval "+sum+"\n" {
		t.Errorf("lock: %q", out)
	}
	if got := readOr("zap.lock", ""); got != pinned {
		t.Errorf("lock wrote %q, want %q", got, pinned)
	}
	code, out, errs = f.run("config", "validate")
	want(t, "validate pinned", code, 0, out, errs)

	// Another build (one byte more) named by --evaluator: refused until
	// zap lock pins it.
	other := filepath.Join(t.TempDir(), "zap-eval")
	self, _ := os.ReadFile(filepath.Join(f.bin, "zap-eval"))
	os.WriteFile(other, append(self, 0), 0o755)
	osum := hexOf(t, other)
	for _, args := range [][]string{{"plan"}, {"detect"}, {"status"}, {"config", "validate"}} {
		cmd := append([]string{args[0]}, args[1:]...)
		cmd = append(cmd, "--evaluator", other)
		code, out, errs := f.run(cmd...)
		want(t, strings.Join(args, " ")+" off the pin", code, 2, out, errs)
		if errs != "error: zap-eval "+other+" hashes to "+osum+", not the toolchain pin "+sum+" in zap.lock\nhint: run zap lock to pin it, or point --evaluator at the pinned one\n" {
			t.Errorf("%v off the pin: %q", args, errs)
		}
	}
	code, out, errs = f.run("lock", "--evaluator", other)
	want(t, "lock other", code, 0, out, errs)
	if out != "pinned zap-eval "+osum+" (was "+sum+")\n" {
		t.Errorf("lock moved: %q", out)
	}
	code, out, errs = f.run("config", "validate", "--evaluator", other)
	want(t, "validate other", code, 0, out, errs)
	// Now the one beside zap is off the pin.
	code, out, errs = f.run("config", "validate")
	want(t, "beside zap off the pin", code, 2, out, errs)

	// A relative --evaluator is refused.
	code, out, errs = f.run("plan", "--evaluator", "zap-eval")
	want(t, "relative", code, 2, out, errs)
	if !strings.HasPrefix(errs, "error: --evaluator zap-eval is not an absolute path\n") {
		t.Errorf("relative: %q", errs)
	}
	// A script is refused.
	script := filepath.Join(t.TempDir(), "zap-eval")
	os.WriteFile(script, []byte("#!/bin/sh\nexec "+other+" \"$@\"\n"), 0o755)
	code, out, errs = f.run("lock", "--evaluator", script)
	want(t, "script", code, 2, out, errs)
	if !strings.Contains(errs, "a script (#!)") {
		t.Errorf("script: %q", errs)
	}
	// A config named *.lock.
	code, out, errs = f.run("lock", "site.lock")
	want(t, "*.lock", code, 2, out, errs)
	if !strings.HasPrefix(errs, "error: site.lock: the config is named as its own lock would be") {
		t.Errorf("*.lock: %q", errs)
	}
}

func TestEvaluatorFormat(t *testing.T) {
	f := newFake(t)
	f.stage("zap-eval", 0, "", strings.Replace(declJSON, "zap.declaration/1", "zap.declaration/2", 1))
	code, out, errs := f.run("config", "validate")
	want(t, "another format", code, 2, out, errs)
	if !strings.Contains(errs, "answers in zap.declaration/2, and this zap reads zap.declaration/1") {
		t.Errorf("another format: %q", errs)
	}
	code, out, errs = f.run("lock")
	want(t, "lock another format", code, 2, out, errs)
	f.stage("zap-eval", 0, "", "not json")
	code, out, errs = f.run("config", "validate")
	want(t, "garbage", code, 1, out, errs)
}

func hexOf(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := blake3.Sum256(b)
	return hex.EncodeToString(s[:])
}
