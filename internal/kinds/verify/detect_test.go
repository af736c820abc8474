package verify

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/detect/detecttest"
	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// The verify-path script, as internal/kinds hands it to ops.
func init() { ops.Register(scripts) }

func verifyOf(as ...declaration.Assertion) *declaration.Verify {
	return &declaration.Verify{Assertions: as}
}

func pathAssert(path, ft, mode, owner string, nonEmpty bool) declaration.Assertion {
	a := declaration.Assertion{Type: declaration.AssertPathExists, Path: path, FileType: ft, Mode: mode, Owner: owner}
	if nonEmpty {
		a.NotEmpty = &nonEmpty
	}
	return a
}

func cmdAssert(run declaration.Text, expect *string) declaration.Assertion {
	return declaration.Assertion{Type: declaration.AssertCommand, Run: &run, Expect: expect}
}

func strp(s string) *string { return &s }

// TestBuildVerify: one login query per assertion, in order: a path_exists
// is a probe running the verify-path script with its arguments set, a
// command an operator's command (references resolved) under the check's
// limit; a reference that can't be carried holds.
func TestBuildVerify(t *testing.T) {
	env := detecttest.Env(map[string]string{"URL": "https://localhost/", "NUL": "a\x00b"})
	run := declaration.Concat(declaration.Part{Lit: "curl -fs "}, declaration.Part{Env: "URL"})
	d := NewVerify(verifyOf(
		pathAssert("/srv/it's", "file", "0600", "app", true),
		cmdAssert(run, nil),
		cmdAssert(declaration.Lit("echo ok"), strp("o'k")),
	), env)
	q := d.Queries()
	if len(q) != 3 {
		t.Fatalf("queries %+v, want 3", q)
	}
	if q[0].Op != detect.OpProbe || q[0].Lane != observation.LaneLogin || q[0].Command.Timeout != vocab.ProbeTimeout ||
		!strings.HasPrefix(q[0].Command.Text, "set -- '/srv/it'\\''s' 'file' '0600' 'app' 'not_empty'\n# zap verify-path ") {
		t.Errorf("path_exists query: %+v", q[0])
	}
	if q[1] != (detect.Query{Op: detect.OpCommand, Lane: observation.LaneLogin, Command: q[1].Command}) || !reflect.DeepEqual(*q[1].Command, detect.Command{Text: "curl -fs https://localhost/", Timeout: vocab.CheckTimeout}) {
		t.Errorf("command query: %+v %+v", q[1], q[1].Command)
	}
	if !strings.Contains(q[2].Command.Text, "\necho ok\n") || !strings.Contains(q[2].Command.Text, "*'o'\\''k'*)") {
		t.Errorf("command with expect: %q", q[2].Command.Text)
	}
	held := NewVerify(verifyOf(cmdAssert(declaration.Ref("NUL"), nil)), env)
	if got := held.Verdict(nil); len(held.Queries()) != 0 || got.Verdict != observation.Undetermined ||
		got.Reason != "assertions[0].run: the reference NUL resolves to a value holding a NUL, which Zap won't use here" {
		t.Errorf("a NUL in a command's reference: %+v", got)
	}
}

// TestVerifyVerdict: every assertion holding is converged; a failing one
// drifts, named with what it asks and what was found; an assertion that
// couldn't be checked holds the verify.
func TestVerifyVerdict(t *testing.T) {
	d := NewVerify(verifyOf(
		pathAssert("/srv/token", "file", "600", "app", true),
		cmdAssert(declaration.Lit("test -s /srv/token"), nil),
		cmdAssert(declaration.Lit("curl -fs https://localhost/"), strp("ok")),
	), detecttest.Env(nil))
	pass := detect.Answer{Status: detect.StatusOK}
	pathDesired := "path_exists /srv/token (file, mode 600, owner app, not empty)"
	detecttest.Check(t, d, []detecttest.Case{
		{"all hold", []detect.Answer{pass, pass, pass}, detect.Converged()},
		{"the path isn't as asserted", []detect.Answer{{Status: detect.StatusOK, Exit: 1, Output: "mode 644\nowner root\n"}, pass, pass},
			detect.Drifted([]observation.Difference{observation.Difference{Field: "assertions[0]", Observed: "mode 644; owner root", Desired: pathDesired}})},
		{"two fail", []detect.Answer{pass, {Status: detect.StatusOK, Exit: 1}, {Status: detect.StatusOK, Exit: vocab.ExpectStatus}},
			detect.Drifted([]observation.Difference{
				observation.Difference{Field: "assertions[1]", Observed: "exited 1", Desired: "command test -s /srv/token"},
				observation.Difference{Field: "assertions[2]", Observed: "its stdout doesn't contain the expected text", Desired: `command curl -fs https://localhost/ (stdout contains "ok")`},
			})},
		{"a command with an expect that exits nonzero", []detect.Answer{pass, pass, {Status: detect.StatusOK, Exit: 7}},
			detect.Drifted([]observation.Difference{observation.Difference{Field: "assertions[2]", Observed: "exited 7", Desired: `command curl -fs https://localhost/ (stdout contains "ok")`}})},
		{"verify-path couldn't read the path", []detect.Answer{{Status: detect.StatusOK, Exit: 2}, pass, pass},
			detect.Holding("assertions[0]: checking /srv/token failed (exit 2)")},
		{"a check timed out", []detect.Answer{pass, detecttest.TimedOut, pass}, detect.Holding("assertions[1]: the check timed out after 30s")},
		{"a probe that failed", []detect.Answer{{Status: detect.StatusFailed, Detail: "the lane broke"}, pass, pass},
			detect.Holding("assertions[0]: reading the assertion failed: the lane broke")},
	})
}

// TestVerifyPathProbe runs the probe detection declares for path_exists
// under each shell this machine has, against real paths.
func TestVerifyPathProbe(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "token")
	if err := os.WriteFile(file, []byte("x"), 0o640); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(file, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, "dangling")); err != nil {
		t.Fatal(err)
	}
	owner := currentUser(t)
	cases := []struct {
		a      declaration.Assertion
		exit   int
		output string
	}{
		{pathAssert(file, "file", "0640", owner, true), 0, ""},
		{pathAssert(file, "", "640", "", false), 0, ""},
		{pathAssert(filepath.Join(dir, "link"), "file", "640", owner, true), 0, ""},
		{pathAssert(dir, "directory", "", "", false), 0, ""},
		{pathAssert(file, "directory", "644", "nobody", false), 1, "a regular file, not a directory\nmode 640\nowner " + owner + "\n"},
		{pathAssert(dir, "file", "", "", false), 1, "a directory, not a regular file\n"},
		{pathAssert(empty, "", "", "", true), 1, "empty (size 0)\n"},
		{pathAssert(filepath.Join(dir, "dangling"), "", "", "", false), 1, "a symbolic link to nothing\n"},
		{pathAssert(filepath.Join(dir, "missing"), "", "", "", false), 1, "nothing there (or it is under a directory " + owner + " can't search)\n"},
	}
	for _, sh := range verifyShells(t) {
		for _, c := range cases {
			q := NewVerify(verifyOf(c.a), detecttest.Env(nil)).Queries()[0]
			cmd := exec.Command(sh[0], append(sh[1:], "-s")...)
			cmd.Stdin = strings.NewReader(q.Command.Text)
			cmd.Env = []string{"LC_ALL=C", "PATH=" + os.Getenv("PATH")}
			out, err := cmd.Output()
			exit := 0
			if ee, ok := err.(*exec.ExitError); ok {
				exit = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if exit != c.exit || string(out) != c.output {
				t.Errorf("%v %s: exit %d, %q; want %d, %q", sh, c.a.Describe(), exit, out, c.exit, c.output)
			}
		}
	}
}

// TestAssertionCommand runs the command a command assertion with an expect
// becomes, under each shell: its status when it fails, vocab.ExpectStatus (its
// stdout printed) when the text isn't there, 0 when it is, a final newline
// and a quote in the expected text included.
func TestAssertionCommand(t *testing.T) {
	cases := []struct {
		run, expect string
		exit        int
		stdout      string
	}{
		{"echo 'all ok'", "ok", 0, ""},
		{"printf 'it'\\''s\\n'", "it's\n", 0, ""},
		{"printf 'a\\nb'", "a\nb", 0, ""},
		{"echo nope", "ok", vocab.ExpectStatus, "nope\n"},
		{"echo ok; exit 3", "ok", 3, ""},
		{"case x in x) echo fine ;; esac", "fine", 0, ""},
		{"cat", "x", vocab.ExpectStatus, ""}, // stdin is /dev/null
	}
	for _, sh := range verifyShells(t) {
		for _, c := range cases {
			text := AssertionCommand(cmdAssert(declaration.Lit(c.run), strp(c.expect))).String()
			cmd := exec.Command(sh[0], append(sh[1:], "-s")...)
			cmd.Stdin = strings.NewReader((&detect.Command{Text: text}).Script())
			out, err := cmd.Output()
			exit := 0
			if ee, ok := err.(*exec.ExitError); ok {
				exit = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if exit != c.exit || string(out) != c.stdout {
				t.Errorf("%v %q expecting %q: exit %d, %q; want %d, %q", sh, c.run, c.expect, exit, out, c.exit, c.stdout)
			}
		}
	}
	// With no expect, the command is the run as written.
	run := declaration.Concat(declaration.Part{Lit: "test -s "}, declaration.Part{Env: "F"})
	if got := AssertionCommand(cmdAssert(run, nil)); got.String() != run.String() {
		t.Errorf("no expect: %q", got.String())
	}
}

// verifyShells are the POSIX shells this machine has of dash, bash and BusyBox
// ash.
func verifyShells(t *testing.T) [][]string {
	var out [][]string
	for _, sh := range [][]string{{"dash"}, {"bash", "--posix"}, {"busybox", "sh"}} {
		if _, err := exec.LookPath(sh[0]); err == nil {
			out = append(out, sh)
		}
	}
	if len(out) == 0 {
		t.Skip("none of dash, bash and busybox is on PATH")
	}
	return out
}

func currentUser(t *testing.T) string {
	out, err := exec.Command("id", "-un").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}
