package execute

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"

	"github.com/zap-go/zap/internal/mask"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/events"
	"github.com/zap-go/zap/pkg/plan"
)

// recorder is a Host that records what it is asked to do and fails where
// told to.
type recorder struct {
	did  []string
	fail map[string]error // by path or script
}

func (r *recorder) result(key string) error {
	r.did = append(r.did, key)
	return r.fail[key]
}

func (r *recorder) Put(_ context.Context, p *Put) error {
	key := "put " + p.Path
	if p.Validate != nil {
		key += " checked by " + p.Validate.Script
	}
	return r.result(key)
}
func (r *recorder) Dir(_ context.Context, d *Dir) error { return r.result("dir " + d.Path) }
func (r *recorder) Link(_ context.Context, l *Link) error {
	return r.result("link " + l.Path + " -> " + l.Target)
}
func (r *recorder) Run(_ context.Context, c *Command) error {
	return r.result("run " + c.Cwd + "\n" + c.Script)
}

func (r *recorder) Op(_ context.Context, o *ZapOp) error {
	return r.result("op " + o.Name + " " + strings.Join(o.Args, " ") + " as " + string(o.Privilege) + "\n" + o.Script)
}

func text(s string) *declaration.Text { t := declaration.Lit(s); return &t }

func fileChange(id, path, content string) plan.Change {
	return plan.Change{ID: id, Type: declaration.KindFile, Action: plan.Create, Steps: []plan.Step{{
		Type: plan.StepOp, Op: &plan.Op{Name: plan.OpPut, Path: declaration.Lit(path), Content: &content, SHA512: "00", Privilege: plan.Elevated},
	}}}
}

func dirChange(id, path string) plan.Change {
	return plan.Change{ID: id, Type: declaration.KindDirectory, Action: plan.Update, Steps: []plan.Step{{
		Type: plan.StepOp, Op: &plan.Op{Name: plan.OpDir, Path: declaration.Lit(path), Mode: "750", Privilege: plan.Elevated},
	}}}
}

func scriptChange(id string, run declaration.Text, env map[string]declaration.Text) plan.Change {
	return plan.Change{ID: id, Type: declaration.KindScript, Action: plan.Create, Steps: []plan.Step{{
		Type: plan.StepCommand, Command: &plan.Command{Run: run, Env: env, Cwd: "/srv", Privilege: plan.Login},
	}}}
}

var ctxAlice = Context{Home: "/home/alice", User: "alice"}

func noRefs(string) (string, bool) { return "", false }

func runPlan(t *testing.T, p *plan.Plan, h Host, lookup Lookup, m *mask.Masker) ([]*events.Event, Result) {
	t.Helper()
	pp, err := Prepare(p, lookup, ctxAlice)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	r := &Runner{Host: h, Events: &out, Mask: m}
	res, err := r.Run(context.Background(), pp)
	if err != nil {
		t.Fatal(err)
	}
	var evs []*events.Event
	for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		e, err := events.Read([]byte(line))
		if err != nil {
			t.Fatalf("event %s doesn't decode: %v", line, err)
		}
		evs = append(evs, e)
	}
	return evs, res
}

// brief renders events compactly for comparison.
func brief(evs []*events.Event) string {
	var b strings.Builder
	for _, e := range evs {
		b.WriteString(string(e.Event))
		if e.ID != "" {
			fmt.Fprintf(&b, " %s", e.ID)
		}
		if e.Step != 0 {
			fmt.Fprintf(&b, " #%d", e.Step)
		}
		if e.Code != "" {
			fmt.Fprintf(&b, " [%s]", e.Code)
		}
		if e.Event == events.RunOK || e.Event == events.RunFailed {
			fmt.Fprintf(&b, " ok=%d failed=%d skipped=%d", e.OK, e.Failed, e.Skipped)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func TestRunInOrder(t *testing.T) {
	p := &plan.Plan{Hash: "h", Changes: []plan.Change{dirChange("a", "~/app"), fileChange("b", "$HOME/app/x", "x"), scriptChange("c", declaration.Lit("make"), nil)}}
	h := &recorder{}
	evs, res := runPlan(t, p, h, noRefs, nil)
	want := `run_started
change_started a
step_started a #1
step_ok a #1
change_ok a
change_started b
step_started b #1
step_ok b #1
change_ok b
change_started c
step_started c #1
step_ok c #1
change_ok c
run_ok ok=3 failed=0 skipped=0
`
	if got := brief(evs); got != want {
		t.Fatalf("events:\n%s\nwant:\n%s", got, want)
	}
	if res != (Result{OK: 3}) {
		t.Fatalf("result %+v", res)
	}
	if evs[0].Format != events.Format || evs[0].PlanHash != "h" || evs[0].Changes != 3 {
		t.Fatalf("run_started %+v", evs[0])
	}
	if evs[2].Summary != "dir ~/app (mode 750, as alice)" || evs[6].Summary != "put $HOME/app/x (as alice)" {
		t.Fatalf("summaries %q, %q", evs[2].Summary, evs[6].Summary)
	}
	wantDid := []string{"dir /home/alice/app", "put /home/alice/app/x", "run /srv\ncd -- '/srv' || exit 125\n{\nmake\n} </dev/null\n"}
	if fmt.Sprint(h.did) != fmt.Sprint(wantDid) {
		t.Fatalf("host did %q, want %q", h.did, wantDid)
	}
}

func TestRunStopsAtFirstFailure(t *testing.T) {
	two := dirChange("b", "/srv/b")
	two.Steps = append(two.Steps, plan.Step{Type: plan.StepOp, Op: &plan.Op{Name: plan.OpLink, Path: declaration.Lit("/srv/b/l"), Target: text("/x"), Privilege: plan.Elevated}})
	p := &plan.Plan{Hash: "h", Changes: []plan.Change{dirChange("a", "/srv/a"), two, dirChange("c", "/srv/c"), fileChange("d", "/srv/d", "d")}}
	h := &recorder{fail: map[string]error{"dir /srv/b": Errorf(events.Conflict, "/srv/b is a symbolic link")}}
	evs, res := runPlan(t, p, h, noRefs, nil)
	want := `run_started
change_started a
step_started a #1
step_ok a #1
change_ok a
change_started b
step_started b #1
step_failed b #1 [conflict]
step_skipped b #2
change_failed b [conflict]
change_skipped c
change_skipped d
run_failed ok=1 failed=1 skipped=2
`
	if got := brief(evs); got != want {
		t.Fatalf("events:\n%s\nwant:\n%s", got, want)
	}
	if res != (Result{OK: 1, Failed: 1, Skipped: 2}) {
		t.Fatalf("result %+v", res)
	}
	if fmt.Sprint(h.did) != "[dir /srv/a dir /srv/b]" {
		t.Fatalf("host did %q", h.did)
	}
	failed := evs[7]
	if failed.Error != "dir /srv/b (mode 750, as alice) failed: /srv/b is a symbolic link" {
		t.Fatalf("step_failed error %q", failed.Error)
	}
	if evs[9].Error != failed.Error {
		t.Fatalf("change_failed error %q, want the step's", evs[9].Error)
	}
	if evs[8].Summary != "link /srv/b/l -> /x (as alice)" || evs[8].Reason == "" {
		t.Fatalf("step_skipped %+v", evs[8])
	}
	if evs[10].Reason != "an earlier change failed: b" {
		t.Fatalf("change_skipped reason %q", evs[10].Reason)
	}
}

func TestRunCommandFailureCarriesExitAndOutput(t *testing.T) {
	p := &plan.Plan{Hash: "h", Changes: []plan.Change{scriptChange("s", declaration.Lit("make install\nmake check"), nil)}}
	script := Script("/srv", nil, "make install\nmake check")
	h := &recorder{fail: map[string]error{"run /srv\n" + script: &ExitError{Status: 2, Output: "make: *** no rule\n"}}}
	evs, _ := runPlan(t, p, h, noRefs, nil)
	f := evs[3]
	if f.Event != events.StepFailed || f.Error != "make install … exited 2" || f.Code != events.ExecutionFailed || f.Exit == nil || *f.Exit != 2 || f.Output != "make: *** no rule\n" {
		t.Fatalf("step_failed %+v", f)
	}
}

// A verify's command assertion fails as the assertion: one whose command
// exited 0 without printing its expected text says so, with no exit code
// of Zap's own; one whose command exited 86 itself says that.
func TestRunVerifyExpectMissed(t *testing.T) {
	ok := "ok"
	verify := func(assertions ...declaration.Assertion) plan.Change {
		c := plan.Change{ID: "gate", Type: declaration.KindVerify, Action: plan.Update,
			Resource: declaration.Resource{Common: declaration.Common{ID: "gate", Type: declaration.KindVerify}, Body: &declaration.Verify{Assertions: assertions}}}
		for i := range assertions {
			c.Steps = append(c.Steps, plan.Step{Type: plan.StepCommand, Command: &plan.Command{
				Run: declaration.Lit(fmt.Sprintf("# verify: the wrapper %d\n", i)), Privilege: plan.Login}})
		}
		return c
	}
	key := func(i int) string { return "run \n" + Script("", nil, fmt.Sprintf("# verify: the wrapper %d\n", i)) }
	for _, c := range []struct {
		name      string
		assertion declaration.Assertion
		err       error
		msg, out  string
		exit      int
	}{
		{"the text missing", declaration.Assertion{Type: declaration.AssertCommand, Run: text("curl -fs http://localhost/"), Expect: &ok},
			&ExitError{Status: vocab.ExpectStatus, Output: "not it\n" + vocab.ExpectMissed + "\n"},
			`command curl -fs http://localhost/ (stdout contains "ok") failed: its stdout doesn't contain the expected text`, "not it\n", -1},
		{"its own exit 86", declaration.Assertion{Type: declaration.AssertCommand, Run: text("check-it"), Expect: &ok},
			&ExitError{Status: vocab.ExpectStatus, Output: "no\n"},
			`command check-it (stdout contains "ok") exited 86`, "no\n", 86},
		{"no expected text", declaration.Assertion{Type: declaration.AssertCommand, Run: text("false")},
			&ExitError{Status: 1},
			`command false exited 1`, "", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := &recorder{fail: map[string]error{key(0): c.err}}
			evs, _ := runPlan(t, &plan.Plan{Hash: "h", Changes: []plan.Change{verify(c.assertion)}}, h, noRefs, nil)
			f := evs[3]
			if f.Event != events.StepFailed || f.Error != c.msg || f.Code != events.ExecutionFailed || f.Output != c.out {
				t.Fatalf("step_failed %+v", f)
			}
			if (f.Exit == nil) != (c.exit < 0) || f.Exit != nil && *f.Exit != c.exit {
				t.Fatalf("step_failed exit %v, want %d", f.Exit, c.exit)
			}
			if e := evs[4]; e.Event != events.ChangeFailed || e.Error != c.msg {
				t.Fatalf("change_failed %+v", e)
			}
		})
	}
}

func TestRunMasksSecrets(t *testing.T) {
	run := declaration.Concat(declaration.Part{Lit: "curl -H 'token: "}, declaration.Part{Env: "TOKEN"}, declaration.Part{Lit: "' https://x"})
	p := &plan.Plan{Hash: "h", Changes: []plan.Change{scriptChange("s", run, map[string]declaration.Text{"API": declaration.Ref("TOKEN")})}}
	lookup := func(n string) (string, bool) { return "s3cr3t-value", n == "TOKEN" }
	pp, err := Prepare(p, lookup, ctxAlice)
	if err != nil {
		t.Fatal(err)
	}
	script := pp.Changes[0].Steps[0].Command.Script
	if !strings.Contains(script, "export API='s3cr3t-value'\n") || !strings.Contains(script, "curl -H 'token: s3cr3t-value' https://x\n") {
		t.Fatalf("script %q doesn't carry the resolved value", script)
	}
	h := &recorder{fail: map[string]error{"run /srv\n" + script: &ExitError{Status: 1, Output: "bad token s3cr3t-value\n"}}}
	evs, _ := runPlan(t, p, h, lookup, mask.New(map[string]string{"TOKEN": "s3cr3t-value"}))
	for _, e := range evs {
		b, _ := e.Marshal()
		if strings.Contains(string(b), "s3cr3t") {
			t.Fatalf("an event holds the secret: %s", b)
		}
	}
	if f := evs[3]; f.Output != "bad token [MASKED:TOKEN]\n" || f.Error != "curl -H 'token: {env:TOKEN}' https://x exited 1" {
		t.Fatalf("step_failed %+v", f)
	}
}

func TestRunNoteIsSkipped(t *testing.T) {
	c := dirChange("a", "/srv/a")
	c.Steps = append([]plan.Step{{Type: plan.StepNote, Note: "verify: nginx answers"}}, c.Steps...)
	evs, _ := runPlan(t, &plan.Plan{Hash: "h", Changes: []plan.Change{c}}, &recorder{}, noRefs, nil)
	want := "run_started\nchange_started a\nstep_started a #1\nstep_skipped a #1\nstep_started a #2\nstep_ok a #2\nchange_ok a\nrun_ok ok=1 failed=0 skipped=0\n"
	if got := brief(evs); got != want {
		t.Fatalf("events:\n%s\nwant:\n%s", got, want)
	}
}

func TestRunStopsWhenEventsCantBeWritten(t *testing.T) {
	pp, _ := Prepare(&plan.Plan{Hash: "h", Changes: []plan.Change{dirChange("a", "/a")}}, noRefs, ctxAlice)
	h := &recorder{}
	r := &Runner{Host: h, Events: failWriter{}}
	if _, err := r.Run(context.Background(), pp); err == nil {
		t.Fatal("a run whose events can't be written went on")
	}
	if len(h.did) != 0 {
		t.Fatalf("the host was asked to act: %q", h.did)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, syscall.EPIPE }

func TestPrepareResolves(t *testing.T) {
	path := declaration.Concat(declaration.Part{Env: "APP"}, declaration.Part{Lit: "//current/"})
	c := plan.Change{ID: "l", Type: declaration.KindLink, Action: plan.Create, Steps: []plan.Step{{
		Type: plan.StepOp, Op: &plan.Op{Name: plan.OpLink, Path: path, Target: text("~/releases/v1"), Privilege: plan.Elevated},
	}}}
	lookup := func(n string) (string, bool) { return "/srv/app", n == "APP" }
	pp, err := Prepare(&plan.Plan{Changes: []plan.Change{c}}, lookup, ctxAlice)
	if err != nil {
		t.Fatal(err)
	}
	l := pp.Changes[0].Steps[0].Link
	if l.Path != "/srv/app/current" || l.Target != "/home/alice/releases/v1" {
		t.Fatalf("link %+v", l)
	}
	if s := pp.Changes[0].Steps[0].Summary; s != "link {env:APP}//current/ -> ~/releases/v1 (as alice)" {
		t.Fatalf("summary %q", s)
	}
}

func TestPrepareRefuses(t *testing.T) {
	env := map[string]string{"REL": "relative/x", "Q": "it's", "STATE": "/var/lib/zap", "NUL": "a\x00b", "OK": "/srv"}
	lookup := func(n string) (string, bool) { v, ok := env[n]; return v, ok }
	refPath := func(name, rest string) declaration.Text {
		return declaration.Concat(declaration.Part{Env: name}, declaration.Part{Lit: rest})
	}
	cmd := func(run declaration.Text) plan.Change { return scriptChange("s", run, nil) }
	withPath := func(kind plan.OpName, p declaration.Text) plan.Change {
		c := fileChange("f", "/x", "x")
		c.Steps[0].Op.Name = kind
		c.Steps[0].Op.Path = p
		return c
	}
	root := dirChange("r", "/srv/r")
	root.Steps[0].Op.Privilege = plan.Root
	for name, tc := range map[string]struct {
		change plan.Change
		want   string
	}{
		"unrecorded reference": {cmd(declaration.Ref("MISSING")), "references MISSING, which the plan's references block doesn't record"},
		"quote in a command":   {cmd(refPath("Q", " x")), "the value of Q holds a single quote"},
		"relative path":        {withPath(plan.OpPut, refPath("REL", "/f")), `"relative/x/f" must be absolute`},
		"state directory":      {withPath(plan.OpDir, refPath("STATE", "/pending")), "at or under Zap's own /var/lib/zap"},
		"path ends in ..":      {withPath(plan.OpPut, refPath("OK", "/a/..")), "ends in .."},
		"NUL in env": {scriptChange("s", declaration.Lit("true"), map[string]declaration.Text{"X": declaration.Ref("NUL")}),
			"the value of NUL holds a NUL"},
		"root step": {root, "needs sudo"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Prepare(&plan.Plan{Changes: []plan.Change{tc.change}}, lookup, ctxAlice)
			var pe *PrepareError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want a PrepareError with %q", err, tc.want)
			}
		})
	}
}

func TestPrepareLinkTargetAboveState(t *testing.T) {
	c := plan.Change{ID: "l", Type: declaration.KindLink, Action: plan.Create, Steps: []plan.Step{{
		Type: plan.StepOp, Op: &plan.Op{Name: plan.OpLink, Path: declaration.Lit("/srv/l"), Target: func() *declaration.Text { t := declaration.Ref("T"); return &t }(), Privilege: plan.Elevated},
	}}}
	for _, target := range []string{"/var/lib", "/var/lib/zap/pending", "/var//lib/"} {
		_, err := Prepare(&plan.Plan{Changes: []plan.Change{c}}, func(string) (string, bool) { return target, true }, ctxAlice)
		if err == nil {
			t.Fatalf("a link to %s was prepared", target)
		}
	}
}

func TestScript(t *testing.T) {
	got := Script("/srv/my app", map[string]string{"B": "it's", "A": "x"}, "make\n")
	want := "cd -- '/srv/my app' || exit 125\nexport A='x'\nexport B='it'\\''s'\n{\nmake\n} </dev/null\n"
	if got != want {
		t.Fatalf("script %q, want %q", got, want)
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want events.Code
	}{
		{fmt.Errorf("x: %w", syscall.EACCES), events.Permission},
		{fmt.Errorf("x: %w", syscall.EPERM), events.Permission},
		{fmt.Errorf("x: %w", syscall.ENOSPC), events.Conflict},
		{fmt.Errorf("x: %w", syscall.EISDIR), events.Conflict},
		{fmt.Errorf("x: %w", syscall.ENOENT), events.NotFound},
		{fmt.Errorf("x: %w", syscall.EIO), events.Permanent},
		{fmt.Errorf("x: %w", context.DeadlineExceeded), events.Transient},
		{&TimeoutError{}, events.Transient},
		{fmt.Errorf("the check %w", &ExitError{Status: 1}), events.ExecutionFailed},
		{Errorf(events.Conflict, "in the way"), events.Conflict},
		{errors.New("anything else"), events.Permanent},
	} {
		if got, _, _ := Classify(tc.err); got != tc.want {
			t.Errorf("Classify(%v) = %s, want %s", tc.err, got, tc.want)
		}
	}
}

func TestTail(t *testing.T) {
	tail := NewTail(8)
	tail.Write([]byte("0123"))
	tail.Write([]byte("456789"))
	if tail.String() != "23456789" || !tail.Cut() {
		t.Fatalf("%q", tail.String())
	}
	tail.Write([]byte("abcdefghijkl"))
	if tail.String() != "efghijkl" {
		t.Fatalf("%q", tail.String())
	}
}

// TestZapOp checks that an operation other than put, dir and link runs its
// constant script with its path (resolved) and its literal arguments, that
// one this zap has no script for is refused before anything runs, and that
// its failure names the script and keeps its output.
func TestZapOp(t *testing.T) {
	scripts := func(name plan.OpName) (plan.Script, bool) {
		if name == "svc" {
			return plan.Script{Text: "echo svc\n", Invocation: "sh -s --"}, true
		}
		return plan.Script{}, false
	}
	op := func(name plan.OpName, path string, args ...string) plan.Change {
		return plan.Change{ID: "s", Type: declaration.KindService, Action: plan.Update, Steps: []plan.Step{{
			Type: plan.StepOp, Op: &plan.Op{Name: name, Path: declaration.Lit(path), Args: args, Privilege: plan.Root},
		}}}
	}
	c := ctxAlice
	c.Root, c.Scripts = true, scripts
	pp, err := Prepare(&plan.Plan{Changes: []plan.Change{op("svc", "~/x", "reload", "nginx")}}, noRefs, c)
	if err != nil {
		t.Fatal(err)
	}
	z := pp.Changes[0].Steps[0].Op
	if z == nil || z.Script != "echo svc\n" || strings.Join(z.Args, "|") != "/home/alice/x|reload|nginx" || z.Privilege != plan.Root {
		t.Fatalf("prepared %+v", z)
	}
	if got := pp.Changes[0].Steps[0].Summary; got != "sudo svc ~/x reload nginx" {
		t.Errorf("summary %q", got)
	}
	pp, err = Prepare(&plan.Plan{Changes: []plan.Change{op("svc", "", "restart")}}, noRefs, c)
	if err != nil || strings.Join(pp.Changes[0].Steps[0].Op.Args, "|") != "restart" {
		t.Fatalf("an op with no path: %v %+v", err, pp)
	}
	_, err = Prepare(&plan.Plan{Changes: []plan.Change{op("nope", "", "x")}}, noRefs, c)
	var pe *PrepareError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), `this zap has no operation "nope"`) {
		t.Errorf("an unknown operation: %v", err)
	}
	_, err = Prepare(&plan.Plan{Changes: []plan.Change{op("svc", "", "a\x00b")}}, noRefs, c)
	if err == nil || !strings.Contains(err.Error(), "args[0]: holds a NUL") {
		t.Errorf("a NUL argument: %v", err)
	}

	// Text arguments follow the literal ones, resolved; the summary
	// writes the reference, never its value.
	withText := op("svc", "", "reload")
	withText.Steps[0].Op.TextArgs = []declaration.Text{declaration.Ref("DB"), declaration.Lit("x")}
	vals := map[string]string{"DB": "o'b", "NUL": "a\x00b"}
	lookup := func(n string) (string, bool) { v, ok := vals[n]; return v, ok }
	pp, err = Prepare(&plan.Plan{Changes: []plan.Change{withText}}, lookup, c)
	if err != nil || strings.Join(pp.Changes[0].Steps[0].Op.Args, "|") != "reload|o'b|x" {
		t.Fatalf("text args: %v %+v", err, pp)
	}
	if got := pp.Changes[0].Steps[0].Summary; got != "sudo svc reload {env:DB} x" {
		t.Errorf("summary %q", got)
	}
	for name, want := range map[string]string{"NUL": "text_args[0]: the value of NUL holds a NUL", "GONE": "text_args[0]: references GONE, which the plan's references block doesn't record"} {
		withText.Steps[0].Op.TextArgs[0] = declaration.Ref(name)
		_, err = Prepare(&plan.Plan{Changes: []plan.Change{withText}}, lookup, c)
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), want) {
			t.Errorf("text arg %s: %v, want %q", name, err, want)
		}
	}

	pp, err = Prepare(&plan.Plan{Hash: "h", Changes: []plan.Change{op("svc", "", "restart")}}, noRefs, c)
	if err != nil {
		t.Fatal(err)
	}
	h := &recorder{fail: map[string]error{"op svc restart as root\necho svc\n": &ExitError{Status: 3, Output: "Job failed"}}}
	var out bytes.Buffer
	res, err := (&Runner{Host: h, Events: &out}).Run(context.Background(), pp)
	if err != nil || res.Failed != 1 {
		t.Fatalf("run: %v %+v", err, res)
	}
	if !strings.Contains(out.String(), `"error":"sudo svc restart failed: the svc script exited 3"`) || !strings.Contains(out.String(), `"output":"Job failed"`) {
		t.Errorf("events:\n%s", out.String())
	}
}

// A package, service or ufw operation reads as the commands it runs, each
// under an explicit sudo, in the report as in the plan (targets.md); any
// other operation that runs as root as itself under sudo.
func TestSummarySudo(t *testing.T) {
	for _, c := range []struct {
		op   plan.Op
		want string
	}{
		{plan.Op{Name: "pkg-install-apt", Args: []string{"curl"}, Privilege: plan.Root},
			"sudo apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=120 -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold -- curl"},
		{plan.Op{Name: "svc-restart", Args: []string{"systemd", "nginx"}, Privilege: plan.Root},
			"sudo systemctl daemon-reload; sudo systemctl try-restart -- nginx"},
		{plan.Op{Name: "firewall-ufw-enable", Privilege: plan.Root}, "sudo ufw --force enable"},
		{plan.Op{Name: "user-account", Args: []string{"deploy"}, Privilege: plan.Root}, "sudo user-account deploy"},
	} {
		if got := Summary(plan.Step{Type: plan.StepOp, Op: &c.op}, "alice", false); got != c.want {
			t.Errorf("Summary(%s) = %q, want %q", c.op.Name, got, c.want)
		}
	}
}
