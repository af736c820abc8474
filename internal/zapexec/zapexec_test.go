package zapexec

import (
	"bytes"
	"context"
	"crypto/sha512"
	"encoding/hex"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/events"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// fixture is a plan for this process's user and a temporary HOME.
type fixture struct {
	home string
	plan *plan.Plan
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{home: home, plan: &plan.Plan{
		Format:  plan.Format,
		Target:  declaration.Target{Local: true},
		Context: observation.Context{Target: "local", User: u.Username, Home: home},
		Changes: []plan.Change{},
	}}
}

func (f *fixture) file(id, path, content string) {
	sum := sha512.Sum512([]byte(content))
	c := content
	r := declaration.Resource{Common: declaration.Common{ID: id, Type: declaration.KindFile},
		Body: &declaration.File{Path: declaration.Lit(path), Content: declaration.Content{Type: declaration.ContentInline, Inline: &c}}}
	f.plan.Changes = append(f.plan.Changes, plan.Change{ID: id, Type: declaration.KindFile, Action: plan.Create, Resource: r, Steps: []plan.Step{{
		Type: plan.StepOp, Op: &plan.Op{Name: plan.OpPut, Path: declaration.Lit(path), Content: &c, SHA512: hex.EncodeToString(sum[:]), Privilege: plan.Elevated},
	}}})
}

func (f *fixture) link(id string, path, target declaration.Text) {
	r := declaration.Resource{Common: declaration.Common{ID: id, Type: declaration.KindLink},
		Body: &declaration.Link{Path: path, Target: target}}
	f.plan.Changes = append(f.plan.Changes, plan.Change{ID: id, Type: declaration.KindLink, Action: plan.Create, Resource: r, Steps: []plan.Step{{
		Type: plan.StepOp, Op: &plan.Op{Name: plan.OpLink, Path: path, Target: &target, Privilege: plan.Elevated},
	}}})
}

func (f *fixture) script(id string, run declaration.Text) {
	r := declaration.Resource{Common: declaration.Common{ID: id, Type: declaration.KindScript},
		Body: &declaration.Script{Check: declaration.Lit("false"), Run: run}}
	f.plan.Changes = append(f.plan.Changes, plan.Change{ID: id, Type: declaration.KindScript, Action: plan.Create, Resource: r, Steps: []plan.Step{{
		Type: plan.StepCommand, Command: &plan.Command{Run: run, Privilege: plan.Login},
	}}})
}

// encode hashes the plan and encodes it.
func (f *fixture) encode(t *testing.T) []byte {
	t.Helper()
	h, err := plan.Hash(f.plan, ops.Script)
	if err != nil {
		t.Fatal(err)
	}
	f.plan.Hash = h
	b, err := f.plan.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// execMain runs zap-exec --wetrun with args on the plan doc.
func execMain(t *testing.T, doc []byte, args ...string) (int, []*events.Event, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), append([]string{"--wetrun"}, args...), bytes.NewReader(doc), &stdout, &stderr)
	var evs []*events.Event
	for _, line := range strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n") {
		if line == "" {
			continue
		}
		e, err := events.Read([]byte(line))
		if err != nil {
			t.Fatalf("event %s doesn't decode: %v", line, err)
		}
		evs = append(evs, e)
	}
	return code, evs, stderr.String()
}

func exists(path string) bool { _, err := os.Lstat(path); return err == nil }

func TestRunsThePlan(t *testing.T) {
	f := newFixture(t)
	f.file("a", "~/conf/a.txt", "a\n")
	f.link("b", declaration.Lit("$HOME/current"), declaration.Lit("~/conf"))
	f.script("c", declaration.Lit("echo done > ~/c.txt"))
	code, evs, stderr := execMain(t, f.encode(t))
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if evs[0].Event != events.RunStarted || evs[0].PlanHash != f.plan.Hash || evs[len(evs)-1].Event != events.RunOK || evs[len(evs)-1].OK != 3 {
		t.Fatalf("stream from %+v to %+v", evs[0], evs[len(evs)-1])
	}
	b, _ := os.ReadFile(filepath.Join(f.home, "current", "a.txt"))
	c, _ := os.ReadFile(filepath.Join(f.home, "c.txt"))
	if string(b) != "a\n" || string(c) != "done\n" {
		t.Fatalf("the changes didn't all land: %q %q", b, c)
	}
}

// TestDryRunChangesNothing: without --wetrun zap-exec checks the plan,
// says what it would do, exits 0 and changes nothing.
func TestDryRunChangesNothing(t *testing.T) {
	f := newFixture(t)
	f.file("a", "~/conf/a.txt", "a\n")
	f.script("c", declaration.Lit("echo done > ~/c.txt"))
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), nil, bytes.NewReader(f.encode(t)), &stdout, &stderr)
	want := "would create a (file)\n  put ~/conf/a.txt (as " + f.plan.Context.User + ")\n" +
		"would create c (script)\n  echo done > ~/c.txt\n" +
		"nothing changed: 2 changes would run with --wetrun\n"
	if code != 0 || stderr.String() != "" || stdout.String() != want {
		t.Fatalf("exit %d, stderr %q, stdout\n%s\nwant\n%s", code, stderr.String(), stdout.String(), want)
	}
	if exists(filepath.Join(f.home, "conf")) || exists(filepath.Join(f.home, "c.txt")) {
		t.Fatal("a run without --wetrun changed the target")
	}
}

func TestStopsAtFirstFailure(t *testing.T) {
	f := newFixture(t)
	os.Mkdir(filepath.Join(f.home, "in-the-way"), 0o755)
	f.file("a", "~/a.txt", "a")
	f.link("b", declaration.Lit("~/in-the-way"), declaration.Lit("/x"))
	f.file("c", "~/c.txt", "c")
	code, evs, stderr := execMain(t, f.encode(t))
	if code != 1 || stderr != "" {
		t.Fatalf("exit %d, stderr %q, want 1 and the failure in the events alone", code, stderr)
	}
	last := evs[len(evs)-1]
	if last.Event != events.RunFailed || last.OK != 1 || last.Failed != 1 || last.Skipped != 1 {
		t.Fatalf("run_failed %+v", last)
	}
	var failed, skipped *events.Event
	for _, e := range evs {
		switch e.Event {
		case events.ChangeFailed:
			failed = e
		case events.ChangeSkipped:
			skipped = e
		}
	}
	if failed == nil || failed.ID != "b" || failed.Code != events.Conflict || failed.Error != "link ~/in-the-way -> /x (as "+f.plan.Context.User+") failed: "+filepath.Join(f.home, "in-the-way")+" is a directory" {
		t.Fatalf("change_failed %+v", failed)
	}
	if skipped == nil || skipped.ID != "c" || exists(filepath.Join(f.home, "c.txt")) {
		t.Fatalf("c wasn't skipped: %+v", skipped)
	}
}

func TestRefusesEditedPlan(t *testing.T) {
	f := newFixture(t)
	f.file("a", "~/a.txt", "reviewed")
	doc := f.encode(t)
	doc = bytes.Replace(doc, []byte(`"content":"reviewed"`), []byte(`"content":"edited!!"`), 2)
	code, evs, stderr := execMain(t, doc)
	if code != 2 || len(evs) != 0 || !strings.HasPrefix(stderr, "zap-exec: plan_hash: the plan hashes to ") {
		t.Fatalf("exit %d, %d events, stderr %q", code, len(evs), stderr)
	}
	if exists(filepath.Join(f.home, "a.txt")) {
		t.Fatal("the edited plan wrote its file")
	}
}

func TestRefusesAnotherContext(t *testing.T) {
	for name, edit := range map[string]func(c *observation.Context) string{
		"user": func(c *observation.Context) string {
			c.User = "someone-else"
			return "the plan is for user someone-else, and zap-exec runs as "
		},
		"home": func(c *observation.Context) string {
			c.Home = "/home/someone-else"
			return "the plan is for HOME /home/someone-else, and HOME is "
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			f.file("a", "~/a.txt", "a")
			want := edit(&f.plan.Context)
			code, evs, stderr := execMain(t, f.encode(t))
			if code != 2 || len(evs) != 0 || !strings.Contains(stderr, want) {
				t.Fatalf("exit %d, %d events, stderr %q, want %q", code, len(evs), stderr, want)
			}
			if exists(filepath.Join(f.home, "a.txt")) {
				t.Fatal("the plan ran")
			}
		})
	}
}

func TestRefusesUnsetOrMovedReference(t *testing.T) {
	for name, tc := range map[string]struct {
		app, token string
		set        bool
		want       string
	}{
		"unset":        {want: "referenced variable(s) unset or empty: APP, TOKEN"},
		"empty":        {set: true, want: "referenced variable(s) unset or empty: APP, TOKEN"},
		"moved":        {set: true, app: "/elsewhere", token: "hunter2-secret", want: "APP isn't the value the plan recorded"},
		"secret unset": {set: true, app: "/srv/app", want: "referenced variable(s) unset or empty: TOKEN"},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			f.plan.References = []observation.Reference{{Name: "APP", Value: "/srv/app"}, {Name: "TOKEN", Secret: true}}
			f.script("s", declaration.Concat(declaration.Part{Lit: "touch ~/ran; echo "}, declaration.Part{Env: "APP"}))
			if tc.set {
				t.Setenv("APP", tc.app)
				t.Setenv("TOKEN", tc.token)
			} else {
				t.Setenv("APP", "") // restored after the test
				t.Setenv("TOKEN", "")
				os.Unsetenv("APP")
				os.Unsetenv("TOKEN")
			}
			code, evs, stderr := execMain(t, f.encode(t))
			if code != 2 || len(evs) != 0 || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, %d events, stderr %q, want %q", code, len(evs), stderr, tc.want)
			}
			if strings.Contains(stderr, "hunter2") {
				t.Fatalf("a secret's value was printed: %q", stderr)
			}
			if exists(filepath.Join(f.home, "ran")) {
				t.Fatal("the plan ran")
			}
		})
	}
}

func TestRefusesPlanMadeUnresolved(t *testing.T) {
	f := newFixture(t)
	f.plan.References = []observation.Reference{{Name: "APP"}}
	f.plan.Unresolved = []string{"APP"}
	t.Setenv("APP", "/srv/app")
	code, _, stderr := execMain(t, f.encode(t))
	if code != 2 || !strings.Contains(stderr, "the plan was made with APP unset or empty") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

// TestRemoteContext checks that a remote plan binds only a run that would
// connect to its host as its user, refused before connecting.
func TestRemoteContext(t *testing.T) {
	host, user, boot := declaration.Lit("example.org"), declaration.Lit("deploy"), declaration.Lit("admin")
	for _, tc := range []struct {
		name, target, user, home string
		args                     []string
		want                     string
	}{
		{"host", "other.org", "deploy", "", nil, "zap-exec: the plan is for host other.org, and the target resolves to example.org here\n"},
		{"user", "example.org", "admin", "", nil, "zap-exec: the plan is for user admin, and this run connects as deploy: a review made as one user doesn't bind a run as another\n"},
		{"bootstrap", "example.org", "deploy", "", []string{"--bootstrap"}, "zap-exec: the plan is for user deploy, and --bootstrap connects as admin: a plan made without --bootstrap doesn't bind a --bootstrap run\n"},
		{"home", "example.org", "deploy", "/home/deploy", nil, "zap-exec: plan: context.home: \"/home/deploy\", but the target declares home \"\"\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.plan.Target = declaration.Target{Host: &host, User: &user, BootstrapUser: &boot}
			f.plan.Context = observation.Context{Target: tc.target, User: tc.user, Home: tc.home}
			code, _, stderr := execMain(t, f.encode(t), tc.args...)
			if code != 2 || !strings.HasPrefix(stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
		})
	}
}

func TestUsage(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := Main(context.Background(), []string{"--help"}, nil, &stdout, &stderr); code != 0 || !strings.HasPrefix(stdout.String(), "usage: zap-exec [--wetrun] [--bootstrap] [--progress] [PLAN]") {
		t.Fatalf("--help: exit %d, %q", code, stdout.String())
	}
	stdout.Reset()
	if code := Main(context.Background(), []string{"--nope"}, nil, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "zap-exec: unknown flag --nope") {
		t.Fatalf("unknown flag: exit %d, %q", code, stderr.String())
	}
	stderr.Reset()
	if code := Main(context.Background(), nil, strings.NewReader("{}"), &stdout, &stderr); code != 2 || !strings.HasPrefix(stderr.String(), "zap-exec: plan: format") {
		t.Fatalf("bad plan: exit %d, %q", code, stderr.String())
	}
}

func TestRefusalMasksSecretPath(t *testing.T) {
	f := newFixture(t)
	f.plan.References = []observation.Reference{{Name: "DIR", Secret: true}}
	path := declaration.Concat(declaration.Part{Env: "DIR"}, declaration.Part{Lit: "/f"})
	f.link("l", path, declaration.Lit("/x"))
	t.Setenv("DIR", "relative-secret-dir")
	code, evs, stderr := execMain(t, f.encode(t))
	if code != 2 || len(evs) != 0 || !strings.Contains(stderr, `"[MASKED:DIR]/f" must be absolute`) || strings.Contains(stderr, "relative-secret") {
		t.Fatalf("exit %d, %d events, stderr %q", code, len(evs), stderr)
	}
}

// With --progress a step printing lines over ~2 s is followed by
// step_output events carrying its last line, its secret masked, each
// between the step's start and its end; without the flag there are none.
func TestProgressStepOutput(t *testing.T) {
	for _, progress := range []bool{true, false} {
		f := newFixture(t)
		f.plan.References = []observation.Reference{{Name: "TOKEN", Secret: true}}
		t.Setenv("TOKEN", "hunter2-secret")
		f.script("slow", declaration.Concat(declaration.Part{Lit: "for i in 1 2 3 4; do echo \"working $i "}, declaration.Part{Env: "TOKEN"},
			declaration.Part{Lit: "\"; sleep 0.6; done; printf 'no newline'"}))
		var args []string
		if progress {
			args = []string{"--progress"}
		}
		code, evs, stderr := execMain(t, f.encode(t), args...)
		if code != 0 {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		var lines []string
		started, ended := -1, -1
		for i, e := range evs {
			switch e.Event {
			case events.StepStarted:
				started = i
			case events.StepOK:
				ended = i
			case events.StepOutput:
				if e.ID != "slow" || e.Step != 1 || i < started || started < 0 || ended >= 0 {
					t.Fatalf("step_output out of its step: %+v", e)
				}
				lines = append(lines, e.Line)
			}
		}
		if !progress {
			if len(lines) != 0 {
				t.Fatalf("step_output without --progress: %q", lines)
			}
			continue
		}
		if len(lines) < 3 {
			t.Fatalf("want at least 3 step_output events over ~2.4 s, got %q", lines)
		}
		for i, l := range lines {
			if !strings.HasPrefix(l, "working ") || !strings.HasSuffix(l, " [MASKED:TOKEN]") || strings.Contains(l, "hunter2") {
				t.Fatalf("step_output %d: %q", i, l)
			}
			if i > 0 && l == lines[i-1] {
				t.Fatalf("the same line sent twice: %q", lines)
			}
		}
	}
}
