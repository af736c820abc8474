package zapcli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const plainRemoteDecl = `{"format":"zap.declaration/1",
"target":{"host":{"$env":"ZAP_HOST"},"user":"deploy","bootstrap_user":"admin"},
"resources":[{"id":"d","type":"directory","path":"/srv/d"}]}`

// A stage that can't connect exits 1 with cannot connect and hints: zap
// says the same as its own error, exits 1, and keeps no report.
func TestCannotConnect(t *testing.T) {
	for _, cmd := range [][]string{{"plan"}, {"apply"}, {"detect"}, {"apply", "--wetrun"}} {
		t.Run(strings.Join(cmd, " "), func(t *testing.T) {
			f := newFake(t)
			f.stage("zap-eval", 0, "", plainRemoteDecl)
			f.stage("zap-detect", 1, "zap-detect: cannot connect to 203.0.113.7: dial tcp 203.0.113.7:22: connect: connection refused\nhint: check that the host is up and sshd listens on its port\n")
			code, out, errs := f.runEnv(map[string]string{"ZAP_HOST": "203.0.113.7"}, cmd...)
			want(t, "cannot connect", code, 1, out, errs)
			wantErr := "error: cannot connect to 203.0.113.7: dial tcp 203.0.113.7:22: connect: connection refused\nhint: check that the host is up and sshd listens on its port\n"
			if errs != wantErr {
				t.Errorf("stderr:\n%s\nwant:\n%s", errs, wantErr)
			}
			if out != "" {
				t.Errorf("stdout, want none:\n%s", out)
			}
			if n := readOr(f.dir+"/zap-plan.count", "0"); n != "0" {
				t.Errorf("zap-plan ran %s time(s)", n)
			}
			if reports, _ := filepath.Glob(filepath.Join(f.home, ".zap", "reports", "*")); len(reports) > 0 {
				t.Errorf("a report was kept: %v", reports)
			}
		})
	}
}

// A stage's exit 2 before connecting (a context it refuses) is zap's exit 2.
func TestRemoteInputErrorBeforeConnecting(t *testing.T) {
	f := newFake(t)
	f.stage("zap-eval", 0, "", plainRemoteDecl)
	f.stage("zap-detect", 2, "zap-detect: --bootstrap: the target declares no bootstrap_user to connect as\nhint: declare bootstrap_user in the target, or run without --bootstrap\n")
	code, out, errs := f.runEnv(map[string]string{"ZAP_HOST": "203.0.113.7"}, "plan", "--bootstrap")
	want(t, "stage exit 2", code, 2, out, errs)
	if !strings.HasPrefix(errs, "error: --bootstrap: the target declares no bootstrap_user to connect as\nhint: ") {
		t.Errorf("stderr:\n%s", errs)
	}
}

// --bootstrap reaches zap-detect on plan, apply and detect; without it, no
// stage is given it.
func TestBootstrapPassedOn(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"plan", "--bootstrap"}, "--bootstrap\n"},
		{[]string{"apply", "--bootstrap"}, "--bootstrap\n"},
		{[]string{"detect", "--bootstrap"}, "--bootstrap\n"},
		{[]string{"plan"}, "\n"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			f := newFake(t)
			f.stage("zap-eval", 0, "", plainRemoteDecl)
			f.stage("zap-detect", 1, "zap-detect: cannot connect to h: no\n")
			code, out, errs := f.runEnv(map[string]string{"ZAP_HOST": "h"}, c.args...)
			want(t, "run", code, 1, out, errs)
			got, _ := os.ReadFile(filepath.Join(f.dir, "zap-detect.args"))
			if string(got) != c.want {
				t.Errorf("zap-detect args %q, want %q", got, c.want)
			}
		})
	}
}

// With --bootstrap the connecting user is the bootstrap_user: an unset
// one stops before connecting, and an unset target.user doesn't.
func TestBootstrapUserResolvesToNothing(t *testing.T) {
	const decl = `{"format":"zap.declaration/1",
"target":{"host":"h","user":{"$env":"SVC_USER"},"bootstrap_user":{"$env":"BOOT_USER"}},
"resources":[{"id":"d","type":"directory","path":"/srv/d"}]}`
	f := newFake(t)
	f.stage("zap-eval", 0, "", decl)
	code, out, errs := f.runEnv(map[string]string{"SVC_USER": "svc"}, "plan", "--bootstrap")
	want(t, "no bootstrap user", code, 2, out, errs)
	if !strings.Contains(errs, "resolves to nothing: BOOT_USER unset or empty") {
		t.Errorf("stderr:\n%s", errs)
	}
	if n := readOr(f.dir+"/zap-detect.count", "0"); n != "0" {
		t.Errorf("zap-detect ran %s time(s)", n)
	}
}

// zap status with the host's variable unset names it, as plan and detect
// do, rather than reading the last run of a host called "" (exit 2); the
// connecting user it doesn't need.
func TestStatusHostResolvesToNothing(t *testing.T) {
	f := newFake(t)
	f.stage("zap-eval", 0, "", plainRemoteDecl)
	for _, cmd := range []string{"status", "plan", "detect"} {
		code, out, errs := f.runEnv(nil, cmd)
		want(t, cmd+" with no host", code, 2, out, errs)
		if !strings.Contains(errs, "resolves to nothing: ZAP_HOST unset or empty") || out != "" {
			t.Errorf("%s: stdout:\n%s\nstderr:\n%s", cmd, out, errs)
		}
	}
	const userDecl = `{"format":"zap.declaration/1",
"target":{"host":"h","user":{"$env":"SSH_USER"}},
"resources":[{"id":"d","type":"directory","path":"/srv/d"}]}`
	f.stage("zap-eval", 0, "", userDecl)
	code, out, errs := f.runEnv(nil, "status")
	want(t, "status with no user", code, 1, out, errs)
	if !strings.Contains(out, "\nno last run of this config on h: ") {
		t.Errorf("status with no user:\n%s", out)
	}
}
