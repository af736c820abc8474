package zapcli

import (
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/peterbourgon/ff/v3/ffcli"
)

// TestExpectPlanEmptyIsAUsageError checks that --expect-plan given with an
// empty or blank value (an unset CI variable) is a usage error on apply and
// deploy, dry and wet, before anything is evaluated: never the flag left out.
func TestExpectPlanEmptyIsAUsageError(t *testing.T) {
	f := newFake(t)
	f.setPass(observe(t, absent, absent), "")
	for _, cmd := range []string{"apply", "deploy"} {
		for _, args := range [][]string{
			{"--expect-plan", ""},
			{"--expect-plan="},
			{"--expect-plan", "   "},
			{"--wetrun", "--expect-plan", ""},
			{"--wetrun", "--expect-plan="},
			{"--wetrun", "--json", "--expect-plan", " \t"},
		} {
			what := cmd + " " + strings.Join(args, " ")
			code, out, errs := f.run(append([]string{cmd}, args...)...)
			want(t, what, code, 2, out, errs)
			if !strings.Contains(errs+out, "--expect-plan is empty") {
				t.Errorf("%s: says\n%s%s", what, out, errs)
			}
		}
	}
	if n := f.calls("zap-eval") + f.calls("zap-detect") + f.calls("zap-exec"); n != 0 {
		t.Errorf("a stage ran %d time(s) for a usage error", n)
	}
}

// TestExpectPlanTakesTheWholeHash checks that the first eight characters
// of the plan's own hash, which the terminal's question asks for, are
// refused by --expect-plan with a message saying the whole 64-character
// hash is needed (the match is exact), and nothing runs; the whole hash
// executes.
func TestExpectPlanTakesTheWholeHash(t *testing.T) {
	f := newFake(t)
	first := observe(t, absent, absent)
	hash := f.setPass(first, observe(t, converged, converged))
	f.stage("zap-exec", 0, "", okRun(hash))
	for _, cmd := range []string{"apply", "deploy"} {
		code, out, errs := f.run(cmd, "--wetrun", "--expect-plan", hash[:8])
		want(t, cmd+" with 8 characters", code, 2, out, errs)
		if !strings.Contains(errs, "error: --expect-plan takes the whole plan_hash, all 64 hex characters, not 8") {
			t.Errorf("%s with 8 characters says\n%s%s", cmd, out, errs)
		}
		code, out, errs = f.run(cmd, "--wetrun", "--expect-plan", strings.ToUpper(hash))
		want(t, cmd+" in capitals", code, 2, out, errs)
		if !strings.Contains(errs, "64 lowercase hex characters") {
			t.Errorf("%s in capitals says\n%s%s", cmd, out, errs)
		}
	}
	if n := f.calls("zap-eval") + f.calls("zap-exec"); n != 0 {
		t.Errorf("a stage ran %d time(s) for a usage error", n)
	}
	code, out, errs := f.run("apply", "--wetrun", "--expect-plan", hash)
	want(t, "the whole hash", code, 0, out, errs)
	if f.calls("zap-exec") != 1 {
		t.Fatal("zap-exec didn't run once")
	}
}

// TestConfigDirectoryIsItsZapTs checks that a directory given as CONFIG
// (as zap init DIR takes one) is read as the zap.ts in it, its lock the
// zap.lock beside that; that a directory with no zap.ts is a usage error
// naming the file it lacks; and that from a subdirectory of a project the
// missing ./zap.ts points at ../zap.ts.
func TestConfigDirectoryIsItsZapTs(t *testing.T) {
	f := newFake(t)
	f.setPass(observe(t, absent, absent), "")
	for _, d := range []string{"proj", "nolock", "empty"} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range [][2]string{{"zap.ts", "proj/zap.ts"}, {"zap.lock", "proj/zap.lock"}, {"zap.ts", "nolock/zap.ts"}} {
		data, err := os.ReadFile(c[0])
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(c[1], data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, dir := range []string{"proj", "proj/"} {
		code, out, errs := f.run("config", "validate", dir)
		want(t, "validate "+dir, code, 0, out, errs)
	}
	code, out, errs := f.run("plan", "nolock")
	want(t, "plan nolock", code, 2, out, errs)
	if !strings.HasPrefix(errs, "error: no toolchain pin: nolock/zap.lock doesn't exist") {
		t.Errorf("plan nolock says\n%s", errs)
	}
	for _, args := range [][]string{{"plan", "empty"}, {"lock", "empty"}, {"status", "empty"}, {"update", "--config", "empty"}} {
		code, out, errs := f.run(args...)
		want(t, strings.Join(args, " "), code, 2, out, errs)
		if !strings.HasPrefix(errs, "error: config empty is a directory, and empty/zap.ts doesn't exist\n") {
			t.Errorf("%s says\n%s", strings.Join(args, " "), errs)
		}
	}
	t.Chdir("proj")
	if err := os.Mkdir("sub", 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir("sub")
	code, out, errs = f.run("plan")
	want(t, "plan in a subdirectory", code, 2, out, errs)
	if !strings.Contains(errs, "../zap.ts exists") {
		t.Errorf("plan in a subdirectory says\n%s", errs)
	}
}

// TestUnknownFlagsEchoedAndPointed checks an unknown flag's error: named as
// it was typed (-v, not --v), other tools' dry-run and approval flags
// answered with what Zap does instead, and the one flag an unknown one
// starts (--wet) offered as did-you-mean.
func TestUnknownFlagsEchoedAndPointed(t *testing.T) {
	f := newFake(t)
	for _, c := range []struct {
		args      []string
		msg, hint string
	}{
		{[]string{"plan", "-v"}, "zap plan: unknown flag -v", ""},
		{[]string{"plan", "-i", "hosts"}, "zap plan: unknown flag -i", ""},
		{[]string{"plan", "-dif"}, "zap plan: unknown flag -dif", "did you mean --diff?"},
		{[]string{"plan", "--v=1"}, "zap plan: unknown flag --v", ""},
		{[]string{"apply", "--dry-run"}, "zap apply: unknown flag --dry-run", "zap apply is a dry run already: without --wetrun it only previews"},
		{[]string{"plan", "--dry-run"}, "zap plan: unknown flag --dry-run", "zap plan changes nothing; only zap apply --wetrun"},
		{[]string{"apply", "--yes"}, "zap apply: unknown flag --yes", "no flag answers yes: zap apply --wetrun executes the plan you previewed; --expect-plan HASH"},
		{[]string{"apply", "-y"}, "zap apply: unknown flag -y", "no flag answers yes: zap apply --wetrun"},
		{[]string{"deploy", "--auto-approve"}, "zap deploy: unknown flag --auto-approve", "no flag answers yes: zap deploy --wetrun"},
		{[]string{"deploy", "--wet"}, "zap deploy: unknown flag --wet", "did you mean --wetrun?"},
		{[]string{"plan", "--wetrun"}, "zap plan: unknown flag --wetrun", "--wetrun is a flag of zap apply, zap deploy"},
	} {
		what := strings.Join(c.args, " ")
		code, out, errs := f.run(c.args...)
		want(t, what, code, 2, out, errs)
		first, rest, _ := strings.Cut(errs, "\n")
		if first != "error: "+c.msg {
			t.Errorf("%s: says %q, want %q", what, first, "error: "+c.msg)
		}
		hint, _, _ := strings.Cut(rest, "\n")
		if c.hint != "" && !strings.HasPrefix(hint, "hint: "+c.hint) {
			t.Errorf("%s: hints %q, want %q", what, hint, c.hint)
		}
		if c.hint == "" && !strings.HasPrefix(hint, "hint: zap plan --help") {
			t.Errorf("%s: hints %q, want only the --help line", what, hint)
		}
	}
}

// TestWetrunJSONHelpMatchesItsOutput checks that apply's and deploy's help
// say what a successful wetrun under --json does (docs/cli.md: events
// instead of the text report), with the run itself: stdout only events,
// stderr empty; the help once said the text report went to stderr.
func TestWetrunJSONHelpMatchesItsOutput(t *testing.T) {
	f := newFake(t)
	first := observe(t, absent, absent)
	hash := f.setPass(first, "")
	f.run("apply")
	f.setPass(first, observe(t, converged, converged))
	f.stage("zap-exec", 0, "", okRun(hash))
	code, out, errs := f.run("apply", "--wetrun", "--json")
	want(t, "wetrun --json", code, 0, out, errs)
	if errs != "" || !strings.Contains(out, `"event":"done"`) {
		t.Fatalf("wetrun --json: stdout\n%s\nstderr\n%s", out, errs)
	}
	for _, cmd := range []string{"apply", "deploy"} {
		_, help, _ := f.run(cmd, "--help")
		flat := strings.Join(strings.Fields(help), " ")
		if !strings.Contains(flat, "stdout carries the run's events (zap.events/1) instead of the text report") ||
			strings.Contains(flat, "text report going to stderr") {
			t.Errorf("zap %s --help says of --wetrun --json:\n%s", cmd, help)
		}
	}
}

// TestUpdateWithNothingTrackedSaysSo checks that zap update on a config
// with no tracked pin says there is nothing to update, exit 0, rather than
// print nothing.
func TestUpdateWithNothingTrackedSaysSo(t *testing.T) {
	f := newFake(t)
	f.setPass(observe(t, absent, absent), "")
	code, out, errs := f.run("update")
	want(t, "update", code, 0, out, errs)
	if !strings.HasPrefix(out, "nothing to update: no resource in zap.ts has a tracked pin") || errs != "" {
		t.Errorf("update with nothing tracked: stdout\n%s\nstderr\n%s", out, errs)
	}
}

// TestHelpPagesFitEightyColumnsEnvironmentOnce checks every command's
// --help (and zap alone, and zap help environment): no line wider than 80
// columns, and the variables listed on one page only, zap help
// environment, which every other page that evaluates a config points to.
func TestHelpPagesFitEightyColumnsEnvironmentOnce(t *testing.T) {
	f := newFake(t)
	a := f.app(nil, nil)
	var pages [][]string
	for _, c := range a.commands(&flagSets{a: a}) {
		walk(c, func(c *ffcli.Command) {
			pages = append(pages, append(strings.Fields(c.FlagSet.Name())[1:], "--help"))
		})
	}
	pages = append(pages, []string{"--help"}, nil, []string{"help", "environment"})
	listed := 0
	for _, args := range pages {
		what := "zap " + strings.Join(args, " ")
		code, out, errs := f.run(args...)
		want(t, what, code, 0, out, errs)
		for _, line := range strings.Split(out, "\n") {
			if n := utf8.RuneCountInString(line); n > 80 {
				t.Errorf("%s: a line of %d columns: %s", what, n, line)
			}
		}
		if strings.Contains(out, "\n  ZAP_HOME\n") {
			listed++
			if what != "zap help environment" {
				t.Errorf("%s lists the environment", what)
			}
		}
		if strings.HasSuffix(what, "--help") && (args[0] == "plan" || args[0] == "apply") &&
			!strings.Contains(out, "\nEnvironment: zap help environment lists the variables zap reads.\n") {
			t.Errorf("%s doesn't point to zap help environment:\n%s", what, out)
		}
	}
	if listed != 1 || len(pages) < 15 {
		t.Errorf("the environment is listed on %d of %d pages, want 1", listed, len(pages))
	}
}
