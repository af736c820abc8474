package zapcli

import (
	"strings"
	"testing"
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
