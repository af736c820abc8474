package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/events"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

func readPlan(t *testing.T, doc string) *plan.Plan {
	t.Helper()
	var p plan.Plan
	if err := json.Unmarshal([]byte(doc), &p); err != nil {
		t.Fatal(err)
	}
	return &p
}

const twoChanges = `{"format":"zap.plan/1","target":{"local":true},
"context":{"target":"local","user":"alice","home":"/home/alice"},
"references":[{"name":"APP","value":"/srv/app"},{"name":"TOKEN","secret":true}],
"changes":[
 {"id":"demo","type":"directory","action":"create","resource":{"id":"demo","type":"directory","path":"~/zap-demo\u0007"},
  "steps":[{"type":"op","op":{"name":"dir","path":"~/zap-demo\u0007","privilege":"elevated"}}]},
 {"id":"hello","type":"file","action":"update","resource":{"id":"hello","type":"file","path":"~/zap-demo/hello.txt","mode":"644","content":{"type":"inline","content":"hello from zap\n"}},
  "drift":[{"field":"content","observed":"differs","desired":"inline (15 bytes)"}],
  "steps":[{"type":"op","op":{"name":"put","path":"~/zap-demo/hello.txt","content":"hello from zap\n","sha512":"x","mode":"644","privilege":"elevated"}}]},
 {"id":"s","type":"script","action":"create","resource":{"id":"s","type":"script","check":"test -e x","run":"echo one\necho two","cwd":"/","env":{"B":{"$env":"TOKEN"},"A":"1"}},
  "steps":[{"type":"command","command":{"run":"echo one\necho two","privilege":"login"}}]}
],
"plan_hash":"abc"}`

const wantTwoChanges = `target: local
user: alice
home: /home/alice
references:
  APP = /srv/app
  TOKEN (secret)

[+] demo  directory
    path: ~/zap-demo<U+0007>
    = dir ~/zap-demo<U+0007> (as alice)
[~] hello  file
    path: ~/zap-demo/hello.txt
    mode: 644
    content: inline, 15 bytes, sha512 0c7463f032f1dc98…
    ~ content: differs → inline (15 bytes)
    = put ~/zap-demo/hello.txt (mode 644, as alice)
[+] s  script
    check: test -e x
    cwd: /
    env: A = 1
    env: B = {env:TOKEN}
    > echo one
      echo two

Plan: 3 change(s)
plan_hash: abc
`

func TestPlan(t *testing.T) {
	p := readPlan(t, twoChanges)
	var b bytes.Buffer
	Plan(&b, p, PlanOptions{Mode: ModePlan, Diff: true})
	if got := b.String(); got != wantTwoChanges {
		t.Errorf("got:\n%s\nwant:\n%s", got, wantTwoChanges)
	}
	// Without --diff the drift line is left out, and nothing else moves.
	b.Reset()
	Plan(&b, p, PlanOptions{Mode: ModePlan})
	want := strings.Replace(wantTwoChanges, "    ~ content: differs → inline (15 bytes)\n", "", 1)
	if b.String() != want {
		t.Errorf("without diff:\n%s", b.String())
	}
}

func TestEmptyPlan(t *testing.T) {
	p := readPlan(t, `{"format":"zap.plan/1","target":{"local":true},"context":{"target":"local","user":"a","home":"/h"},"changes":[],"plan_hash":"h"}`)
	var b bytes.Buffer
	Plan(&b, p, PlanOptions{Mode: ModeApply})
	if !strings.Contains(b.String(), "(no changes — converged)\nplan_hash: h\n") {
		t.Errorf("empty plan:\n%s", b.String())
	}
	// Held resources: not "converged", and the banner leads.
	p.Held = []plan.Hold{{ID: "f", Type: "file", Reason: "open: permission denied"}, {ID: "s", Type: "script", WaitsOn: []string{"f"}}}
	b.Reset()
	Plan(&b, p, PlanOptions{Mode: ModePlan})
	got := b.String()
	if !strings.HasPrefix(got, "UNDETERMINED — 1 resource(s) could not be read\n  f  file: open: permission denied\n  held behind them (1):\n    s  script: waits on f\n") {
		t.Errorf("held:\n%s", got)
	}
	if strings.Contains(got, "converged)") {
		t.Errorf("a plan with holds reads converged:\n%s", got)
	}
}

func TestUnverifiable(t *testing.T) {
	var b bytes.Buffer
	Unverifiable(&b, []string{"DATABASE_URL", "SMTP_PASSWORD"})
	want := "UNVERIFIABLE — 2 referenced variable(s) are unset or empty, so this comparison cannot be trusted: DATABASE_URL, SMTP_PASSWORD\n"
	if !strings.HasPrefix(b.String(), want) {
		t.Errorf("got %q", b.String())
	}
}

func TestPutText(t *testing.T) {
	content := "a\x1b[2Jb\nsecond"
	op := &plan.Op{Name: plan.OpPut, Path: mustText(t, `"/etc/x"`), Content: &content, Privilege: plan.Root, Validate: ptr(mustText(t, `"visudo -cf {}"`))}
	var b bytes.Buffer
	Step(&b, observation.Context{Target: "local", User: "alice"}, plan.Step{Type: plan.StepOp, Op: op}, "")
	want := "= put /etc/x (mode not managed, as root, checked by visudo -cf {}, no final newline)\n  text: 13 bytes, sha512 " + sha512Hex(content)[:16] + "…\n    a<U+001B>[2Jb\n    second\n"
	if b.String() != want {
		t.Errorf("got:\n%q\nwant:\n%q", b.String(), want)
	}
}

// TestStepBodies: an apt source line prints under line:, off its = line;
// a sudoers file and an nftables ruleset print whole under text:, as a
// put's text does; a sudoers removal writes no text and shows none.
func TestStepBodies(t *testing.T) {
	ctx := observation.Context{Target: "local", User: "alice"}
	step := func(name plan.OpName, path string, args ...string) string {
		op := &plan.Op{Name: name, Args: args, Privilege: plan.Root}
		if path != "" {
			op.Path = mustText(t, `"`+path+`"`)
		}
		var b bytes.Buffer
		Step(&b, ctx, plan.Step{Type: plan.StepOp, Op: op}, "")
		return b.String()
	}
	if got, want := step("apt-list", "/etc/apt/sources.list.d/x.list", "deb [signed-by=/k.asc] https://example.com/debian $VERSION_CODENAME main"),
		"= sudo apt-list /etc/apt/sources.list.d/x.list\n  line: deb [signed-by=/k.asc] https://example.com/debian $VERSION_CODENAME main\n"; got != want {
		t.Errorf("apt-list:\n got %q\nwant %q", got, want)
	}
	sudoers := "# zap: the sudo grant of deploy\ndeploy ALL=(ALL:ALL) NOPASSWD: /usr/bin/id -u, /bin/true\n"
	if got, want := step("user-sudo", "", "deploy", "nopasswd", "/usr/bin/id -u", "/bin/true"),
		"= sudo user-sudo deploy nopasswd /usr/bin/id -u /bin/true\n  text: 89 bytes, sha512 "+sha512Hex(sudoers)[:16]+"…\n    # zap: the sudo grant of deploy\n    deploy ALL=(ALL:ALL) NOPASSWD: /usr/bin/id -u, /bin/true\n"; got != want {
		t.Errorf("user-sudo:\n got %q\nwant %q", got, want)
	}
	if got, want := step("user-sudo", "", "deploy", "remove"), "= sudo user-sudo deploy remove\n"; got != want {
		t.Errorf("user-sudo remove:\n got %q\nwant %q", got, want)
	}
	got := step("firewall-nft-apply", "", "reject", "allow", "22/tcp")
	for _, want := range []string{"= sudo firewall-nft-apply reject allow 22/tcp\n  text: ", "\n    table inet filter {\n", "\n            tcp dport 22 accept\n", "\n            reject\n        }\n        chain output {\n", "\n    }\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("firewall-nft-apply: no %q in\n%s", want, got)
		}
	}
}

func TestDetect(t *testing.T) {
	var o observation.Observations
	doc := `{"format":"zap.observations/1","declaration":{"format":"zap.declaration/1","target":{"local":true},"resources":[
		{"id":"a","type":"directory","path":"~/a"},{"id":"b","type":"file","path":"~/b","content":{"type":"inline","content":""}},
		{"id":"c","type":"link","path":"~/c","target":"x"},{"id":"d","type":"script","check":"x","run":"y"}]},
		"context":{"target":"local","user":"u","home":"/h"},"batches":[],
		"resources":[{"id":"a","verdict":"converged"},{"id":"b","verdict":"drifted","drift":[{"field":"mode","observed":"600","desired":"644"}]},
		{"id":"c","verdict":"absent"},{"id":"d","verdict":"undetermined","reason":"check\u0007 failed"}]}`
	if err := json.Unmarshal([]byte(doc), &o); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	Detect(&b, &o)
	want := `target: local
user: u
home: /h

ok      a  directory
drift   b  file
        ~ mode: 600 → 644
absent  c  link
?       d  script: check<U+0007> failed

4 resource(s): 1 ok, 1 drift, 1 absent, 1 undetermined
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestProgress(t *testing.T) {
	var b bytes.Buffer
	p := NewProgress(&b)
	exit := 1
	for _, e := range []events.Event{
		{Event: events.RunStarted, Format: events.Format, Changes: 3},
		{Event: events.ChangeStarted, ID: "a", Type: "directory"},
		{Event: events.ChangeOK, ID: "a", Type: "directory"},
		{Event: events.ChangeStarted, ID: "b", Type: "script"},
		{Event: events.StepStarted, ID: "b", Step: 1},
		{Event: events.StepFailed, ID: "b", Step: 1, Error: "> false exited 1", Code: events.ExecutionFailed, Exit: &exit, Output: "boom\n"},
		{Event: events.ChangeFailed, ID: "b", Type: "script", Error: "> false exited 1", Code: events.ExecutionFailed},
		{Event: events.ChangeSkipped, ID: "c", Type: "file", Reason: "an earlier change failed"},
		{Event: events.RunFailed, OK: 1, Failed: 1, Skipped: 1},
	} {
		p.Event(&e)
	}
	want := `Applying 3 change(s):
  ok       a  directory
  failed   b  script: > false exited 1 (execution_failed)
      step 1 failed (exit 1); its output:
        | boom
  skipped  c  file: an earlier change failed
Applied: 1 ok, 1 failed, 1 skipped
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestError(t *testing.T) {
	var b bytes.Buffer
	Error(&b, "zap.ts:3: bad\nmore detail", "run zap config validate")
	want := "error: zap.ts:3: bad\n  more detail\nhint: run zap config validate\n"
	if b.String() != want {
		t.Errorf("got %q", b.String())
	}
}

func mustText(t *testing.T, doc string) declaration.Text {
	t.Helper()
	var x declaration.Text
	if err := x.UnmarshalJSON([]byte(doc)); err != nil {
		t.Fatal(err)
	}
	return x
}

func ptr[T any](v T) *T { return &v }

func TestLinkAndNote(t *testing.T) {
	p := readPlan(t, `{"format":"zap.plan/1","target":{"local":true},"context":{"target":"local","user":"bob","home":"/home/bob"},
	"changes":[{"id":"cur","type":"link","action":"update","resource":{"id":"cur","type":"link","name":"the current release","path":"~/app/current","target":{"$text":["releases/",{"$env":"VERSION"}]}},
	"steps":[{"type":"note","note":"a note\nover two lines"},{"type":"op","op":{"name":"link","path":"~/app/current","target":{"$text":["releases/",{"$env":"VERSION"}]},"privilege":"elevated"}}]}],
	"plan_hash":"h"}`)
	var b bytes.Buffer
	for i := range p.Changes {
		Change(&b, p, &p.Changes[i], false, "")
	}
	want := `[~] cur  link
    name: the current release
    path: ~/app/current
    to: releases/{env:VERSION}
    # a note
      over two lines
    = link ~/app/current -> releases/{env:VERSION} (as bob)
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestHeaderRemote(t *testing.T) {
	for _, c := range []struct {
		name, target, context, want string
	}{
		{"host as a reference: host: line, the connecting user",
			`{"host":{"$env":"HOST"},"user":{"$env":"USER_NAME"},"port":2222}`,
			`{"target":"203.0.113.7","user":"deploy"}`,
			"target: {env:HOST}\nhost: 203.0.113.7\nuser: deploy\n"},
		{"host as written: no host: line; no user: ssh chooses",
			`{"host":"web1.example"}`,
			`{"target":"web1.example","user":""}`,
			"target: web1.example\nuser: (none — ssh chooses)\n"},
		{"a declared home",
			`{"host":"web1.example","user":"deploy","home":"/home/deploy"}`,
			`{"target":"web1.example","user":"deploy","home":"/home/deploy"}`,
			"target: web1.example\nuser: deploy\nhome: /home/deploy\n"},
		{"a host with a reference inside",
			`{"host":{"$text":["web-",{"$env":"N"},".example"]},"user":"u"}`,
			`{"target":"web-1.example","user":"u"}`,
			"target: web-{env:N}.example\nhost: web-1.example\nuser: u\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var tg declaration.Target
			var cx observation.Context
			if err := json.Unmarshal([]byte(c.target), &tg); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(c.context), &cx); err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			Header(&b, tg, cx, nil)
			if b.String() != c.want {
				t.Errorf("got:\n%s\nwant:\n%s", b.String(), c.want)
			}
		})
	}
}

// TestRemoteFileOpsSayWhatRuns: over SSH an elevated file operation runs
// through sudo and says who owns what it makes, as its script does it: a
// put's or dir's takes its directory's owner (so a directory in the login
// user's home isn't said to be root's) but is root's under a shared
// directory such as /tmp; a link is root's; an extract's contents are
// root's and its top keeps the owner of a directory it replaces. Locally
// it runs as the operator.
func TestRemoteFileOpsSayWhatRuns(t *testing.T) {
	c := observation.Context{Target: "web1", User: "deploy"}
	target := declaration.Lit("/opt/app/bin/app")
	for _, w := range []struct {
		op   plan.Op
		want string
	}{
		{plan.Op{Name: plan.OpPut, Path: declaration.Lit("/etc/motd"), Mode: "644", Privilege: plan.Elevated},
			"put /etc/motd (mode 644, through sudo, owner of its directory when new, root under a shared directory such as /tmp)"},
		{plan.Op{Name: plan.OpDir, Path: declaration.Lit("~/app"), Mode: "755", Privilege: plan.Elevated},
			"dir ~/app (mode 755, through sudo, owner of its directory when new, root under a shared directory such as /tmp)"},
		{plan.Op{Name: plan.OpLink, Path: declaration.Lit("/usr/local/bin/app"), Target: &target, Privilege: plan.Elevated},
			"link /usr/local/bin/app -> /opt/app/bin/app (through sudo, owned by root)"},
		{plan.Op{Name: plan.OpExtract, Path: declaration.Lit("/opt/app"), Privilege: plan.Elevated},
			"extract /opt/app (through sudo, owned by root, its top the owner of a directory it replaces unless under a shared directory such as /tmp)"},
		{plan.Op{Name: plan.OpExtract, Path: declaration.Lit("/opt/app"), Owner: "app", Privilege: plan.Elevated},
			"extract /opt/app (owner app, through sudo, what it holds owned by root)"},
	} {
		if got := OpSummary(c, &w.op); got != w.want {
			t.Errorf("%s over SSH:\n got %q\nwant %q", w.op.Name, got, w.want)
		}
	}
	owned := plan.Op{Name: plan.OpDir, Path: declaration.Lit("/srv/app"), Owner: "app", Privilege: plan.Elevated}
	if got := OpSummary(c, &owned); got != "dir /srv/app (owner app, through sudo)" {
		t.Errorf("dir with an owner over SSH: %q", got)
	}
	local := observation.Context{Target: "local", User: "alice"}
	op := plan.Op{Name: plan.OpDir, Path: declaration.Lit("~/x"), Privilege: plan.Elevated}
	if got := OpSummary(local, &op); !strings.HasSuffix(got, "as alice)") {
		t.Errorf("dir locally: %q, want it as alice", got)
	}
}
