package stages

import (
	"context"
	"errors"
	"io/fs"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/zap-go/zap/internal/exit"
)

// TestStageGC checks that zap-detect and zap-plan run with GOGC=400 unless
// the operator set GOGC or the config references it, and that no other
// stage's environment changes.
func TestStageGC(t *testing.T) {
	env := []string{"PATH=/bin"}
	none := func(string) bool { return false }
	for _, c := range []struct {
		name       string
		getenv     func(string) string
		referenced func(string) bool
		want       bool
	}{
		{"unset", func(string) string { return "" }, none, true},
		{"the operator's", func(k string) string { return map[string]string{"GOGC": "50"}[k] }, none, false},
		{"referenced", func(string) string { return "" }, func(k string) bool { return k == "GOGC" }, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &Runner{dir: "/x", env: env}
			s.UseGC(c.getenv, c.referenced)
			for _, stage := range []string{"zap-detect", "zap-plan", "zap-exec", "zap-eval"} {
				got := s.Command(context.Background(), stage).Env
				has := slices.Contains(got, "GOGC=400")
				if want := c.want && (stage == "zap-detect" || stage == "zap-plan"); has != want {
					t.Errorf("%s: env %q", stage, got)
				}
			}
			if !slices.Equal(env, []string{"PATH=/bin"}) {
				t.Errorf("the operator environment changed: %q", env)
			}
		})
	}
}

// TestStageGCForInput checks that a reading stage given a large input
// runs with the GOGC GCPercentFor the live heap it takes, and one given a
// small input with GCPercent.
func TestStageGCForInput(t *testing.T) {
	s := &Runner{dir: "/x", env: []string{"PATH=/bin"}}
	s.UseGC(func(string) string { return "" }, func(string) bool { return false })
	for _, c := range []struct {
		input int
		want  string
	}{
		{1 << 10, "GOGC=400"},
		{GCHeadroom / StageLivePerByte / 2, "GOGC=200"},
		{20 * GCHeadroom / StageLivePerByte, "GOGC=100"},
	} {
		got := s.command(context.Background(), "zap-plan", c.input).Env
		if !slices.Contains(got, c.want) {
			t.Errorf("input of %d bytes: env %q, want %s", c.input, got, c.want)
		}
	}
}

// TestFit checks that a document in a buffer much larger than it is copied
// to one of its own size, and one that nearly fills its buffer is kept.
func TestFit(t *testing.T) {
	big := make([]byte, 1<<20, 2<<20)
	big[0] = 7
	if got := fit(big); cap(got) >= 2<<20 || &got[0] == &big[0] || len(got) != 1<<20 || got[0] != 7 {
		t.Errorf("fit of 1 MiB in 2: len %d cap %d, want a copy of the same bytes in less", len(got), cap(got))
	}
	full := make([]byte, 100, 105)
	if got := fit(full); &got[0] != &full[0] {
		t.Error("fit of 100 bytes in 105 copied them")
	}
}

// TestStageTooBig: a stage the kernel won't start for the size of its
// environment is not a missing stage, so the hint isn't to reinstall.
func TestStageTooBig(t *testing.T) {
	s := &Runner{dir: "/opt/zap/bin"}
	err := s.Failure("zap-eval", &fs.PathError{Op: "fork/exec", Path: "/proc/self/fd/5", Err: syscall.E2BIG}, nil)
	var se *Error
	if !errors.As(err, &se) || exit.Code(err) != 1 || se.Status != -1 || !errors.Is(err, syscall.E2BIG) {
		t.Fatalf("failure = %v, want a stage that didn't start, exiting 1, that unwraps to E2BIG", err)
	}
	if hints := exit.Hints(err); len(hints) != 1 || strings.Contains(hints[0], "reinstall") || !strings.Contains(hints[0], "too large") {
		t.Errorf("hints = %q, want one saying the environment is too large, not to reinstall", hints)
	}
	err = s.Failure("zap-eval", &fs.PathError{Op: "fork/exec", Path: "/opt/zap/bin/zap-eval", Err: syscall.ENOENT}, nil)
	if hints := exit.Hints(err); len(hints) != 1 || !strings.Contains(hints[0], "reinstall") || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing stage: %v, want the hint to reinstall", err)
	}
}

// TestFailureExitCodes runs a stage (a shell standing in for one) that
// fails each way and checks the exit code zap passes on, the message and
// the hints: its exit 2 and 1 are zap's, a signal or another status is 1,
// and the exit.Error that carries the code unwraps to the stage's Error
// and the *exec.ExitError under it.
func TestFailureExitCodes(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		code, status int
		msg          string
		hints        []string
	}{
		{"input", `echo "zap-x: bad input" >&2; echo "hint: fix it" >&2; exit 2`, 2, 2, "bad input", []string{"fix it"}},
		{"world", `echo "warning: noted" >&2; echo "zap-x: no route" >&2; exit 1`, 1, 1, "no route", nil},
		{"silent", `exit 1`, 1, 1, "zap-x failed (exit status 1) and said nothing", nil},
		{"other status", `echo "zap-x: odd" >&2; exit 3`, 1, 3, "zap-x crashed (exit status 3):\nodd", nil},
		{"signal", `kill -KILL $$`, 1, -1, "zap-x crashed (signal: killed)", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var warnings strings.Builder
			s := &Runner{dir: t.TempDir(), stderr: &warnings}
			_, err := s.RunCmd(exec.Command("sh", "-c", tc.script), "zap-x", nil)
			var se *Error
			var ee *exec.ExitError
			if !errors.As(err, &se) || !errors.As(err, &ee) {
				t.Fatalf("failure = %#v, want a stage's Error over an *exec.ExitError", err)
			}
			if exit.Code(err) != tc.code || se.Status != tc.status || se.Stage != "zap-x" {
				t.Errorf("code %d status %d, want %d %d", exit.Code(err), se.Status, tc.code, tc.status)
			}
			if err.Error() != tc.msg || !slices.Equal(exit.Hints(err), tc.hints) {
				t.Errorf("message %q hints %q, want %q %q", err.Error(), exit.Hints(err), tc.msg, tc.hints)
			}
		})
	}
}

// runtimeCrash tells the Go runtime's report of a crash (recorded from a
// Go 1.26 program) from a stage's own exit 2, whatever text its message or
// a config's output holds.
func TestRuntimeCrash(t *testing.T) {
	for _, c := range []struct {
		name, stderr string
		want         bool
	}{
		{"panic", "panic: boom\n\ngoroutine 1 [running]:\nmain.main()\n\t/tmp/pn/main.go:13 +0x1ab\nexit status 2\n", true},
		{"panic after a warning", "zap-plan: warning: x\npanic: in goroutine\n\ngoroutine 19 [running]:\nmain.main.func1()\n\t/tmp/pn/main.go:17 +0x39\ncreated by main.main in goroutine 1\n", true},
		{"nested panics", "panic: first [recovered]\n\tpanic: again: first\n\ngoroutine 1 [running]:\nmain.main.func3()\n", true},
		{"a nil dereference", "panic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a1af2]\n\ngoroutine 1 [running]:\n", true},
		{"a fatal error", "fatal error: concurrent map writes\n\ngoroutine 21 [running]:\ninternal/runtime/maps.fatal({0x4cb221?, 0x0?})\n", true},
		{"out of stack", "runtime: goroutine stack exceeds 1000000000-byte limit\nfatal error: stack overflow\n\nruntime stack:\nruntime.throw(...)\n", true},
		{"GOTRACEBACK=none", "zap-plan: warning: x\npanic: boom\n\tpanic: inner\n", true},
		{"GOTRACEBACK=none, fatal", "fatal error: concurrent map writes\n", true},
		{"a goroutine header with more words", "panic: x\n\ngoroutine 1 gp=0xc000002380 m=0 mp=0x5c3aa0 [running]:\n", true},

		{"a message", "zap-plan: the observations don't read: x\nhint: y\n", false},
		{"nothing said", "", false},
		{"a message holding the words", "zap-eval: zap.ts:1:70: Error: a\npanic: b\nfatal error: c\n\tat zap_default (zap.ts:1:70)\n", false},
		{"a config's output, then the message", "panic: logged\n\ngoroutine 1 [running]:\nzap-eval: zap.ts:1:1: Error: no\n", false},
		{"panic mid-line", "zap-eval: the config said panic: no\n", false},
		{"a message ending in the words, then a hint", "zap-eval: Error: a\npanic: b\nhint: c\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := runtimeCrash("zap-plan", []byte(strings.ReplaceAll(c.stderr, "zap-eval: ", "zap-plan: "))); got != c.want {
				t.Errorf("runtimeCrash(%q) = %v, want %v", c.stderr, got, c.want)
			}
		})
	}
}

// TestStageMessageHeadlineIsTheStagesOwn: what a stage printed before its
// own "zap-x: " line (a config's console.log, from zap-eval) follows the
// message as context; it never becomes the headline.
func TestStageMessageHeadlineIsTheStagesOwn(t *testing.T) {
	for _, c := range []struct{ name, stderr, msg string }{
		{"zap-eval", "step one\nzap-eval: zap.ts:5:8: Error: boom\n\tat zap_default (zap.ts:5:8)\nhint: h\n",
			"zap.ts:5:8: Error: boom\n\tat zap_default (zap.ts:5:8)\nthe config printed before it failed:\n  step one"},
		{"zap-detect", "zap-detect: fake\nzap-detect: real\n", "real\nzap-detect printed before it failed:\n  zap-detect: fake"},
		{"zap-eval", "zap-eval: only\nmore\n", "only\nmore"},
		{"zap-eval", "no prefix at all\n", "no prefix at all"},
	} {
		msg, hints := stageMessage(c.name, []byte(c.stderr))
		if msg != c.msg {
			t.Errorf("stageMessage(%q) = %q, want %q", c.stderr, msg, c.msg)
		}
		if strings.Contains(c.stderr, "hint: h") && (len(hints) != 1 || hints[0] != "h") {
			t.Errorf("hints = %q", hints)
		}
	}
}

// TestStageMessageReadsWrite checks zap reads back the message and hints a
// stage printed with exit.Write, its indent undone: a message of several
// lines (an indented stack frame, a blank line) and a hint of two lines.
func TestStageMessageReadsWrite(t *testing.T) {
	msg := "3 problems in the config:\nzap.ts:1:1: a\n    at f (zap.ts:1:1)\n\nzap.ts:2:1: b"
	hints := []string{"fix zap.ts", "or run\nzap-eval --help"}
	var b strings.Builder
	exit.Write(&b, "zap-eval", msg, hints...)
	gotMsg, gotHints := stageMessage("zap-eval", []byte("logged\n"+b.String()))
	wantMsg := strings.Replace(msg, "\n\n", "\n", 1) + "\nthe config printed before it failed:\n  logged"
	if gotMsg != wantMsg || !slices.Equal(gotHints, hints) {
		t.Errorf("read back %q %q from\n%s\nwant %q %q", gotMsg, gotHints, b.String(), wantMsg, hints)
	}
}
