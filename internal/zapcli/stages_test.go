package zapcli

import (
	"context"
	"slices"
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
