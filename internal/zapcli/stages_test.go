package zapcli

import (
	"context"
	"errors"
	"io/fs"
	"slices"
	"strings"
	"syscall"
	"testing"
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
			s := &stages{dir: "/x", env: env}
			s.useGC(c.getenv, c.referenced)
			for _, stage := range []string{"zap-detect", "zap-plan", "zap-exec", "zap-eval"} {
				got := s.command(context.Background(), stage).Env
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

// TestStageTooBig: a stage the kernel won't start for the size of its
// environment is not a missing stage, so the hint isn't to reinstall.
func TestStageTooBig(t *testing.T) {
	s := &stages{dir: "/opt/zap/bin"}
	err := s.failure("zap-eval", &fs.PathError{Op: "fork/exec", Path: "/proc/self/fd/5", Err: syscall.E2BIG}, nil)
	var ee *stageError
	if !errors.As(err, &ee) || ee.code != 1 {
		t.Fatalf("failure = %v, want a stageError exiting 1", err)
	}
	if len(ee.hints) != 1 || strings.Contains(ee.hints[0], "reinstall") || !strings.Contains(ee.hints[0], "too large") {
		t.Errorf("hints = %q, want one saying the environment is too large, not to reinstall", ee.hints)
	}
	err = s.failure("zap-eval", &fs.PathError{Op: "fork/exec", Path: "/opt/zap/bin/zap-eval", Err: syscall.ENOENT}, nil)
	if !errors.As(err, &ee) || len(ee.hints) != 1 || !strings.Contains(ee.hints[0], "reinstall") {
		t.Errorf("a missing stage: %v, want the hint to reinstall", err)
	}
}
