package ops

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/plan"
)

// svcShells are the shells the service and ledger scripts must work under.
func svcShells(t *testing.T) [][]string {
	var out [][]string
	for _, s := range [][]string{{"dash"}, {"bash", "--posix"}, {"busybox", "ash"}} {
		if _, err := exec.LookPath(s[0]); err != nil {
			t.Logf("%s: not installed here, not tried", s[0])
			continue
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		t.Skip("no dash, bash or busybox on this machine")
	}
	return out
}

// runScript runs text as `SHELL -s -- ARGS` with text on stdin (how an
// operation runs), PATH set to path, and returns the exit status and
// stderr.
func runScript(t *testing.T, shell []string, text, path string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(shell[0], append(append(shell[1:], "-s", "--"), args...)...)
	cmd.Stdin = strings.NewReader(text)
	cmd.Env = []string{"LC_ALL=C", "PATH=" + path}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), stderr.String()
	case err != nil:
		t.Fatal(err)
	}
	return 0, stderr.String()
}

// fakeManagers writes FAKE systemctl, rc-service and rc-update into a
// directory of the test's own: each only appends its argv, one line, to
// the log and exits with the status in the file exit (0 when none). They
// check the command lines the scripts build, nothing about a real service
// manager, which this machine doesn't run (its PID 1 isn't systemd); the
// lab hosts run the real ones.
func fakeManagers(t *testing.T) (bin, log string) {
	dir := t.TempDir()
	bin, log = filepath.Join(dir, "bin"), filepath.Join(dir, "log")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"systemctl", "rc-service", "rc-update"} {
		fake := "#!/bin/sh\necho \"" + name + " $*\" >>" + log + "\nif [ -f " + dir + "/exit ]; then exit \"$(cat " + dir + "/exit)\"; fi\n"
		if err := os.WriteFile(filepath.Join(bin, name), []byte(fake), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return bin, log
}

// TestServiceScriptCommandLines: each service verb's command lines on
// systemd and OpenRC, under dash, bash and BusyBox ash, against FAKE
// managers that only record their argv.
func TestServiceScriptCommandLines(t *testing.T) {
	cases := []struct {
		op, manager string
		want        string
	}{
		{"svc-enable", "systemd", "systemctl enable -- nginx"},
		{"svc-enable", "openrc", "rc-update add nginx default"},
		{"svc-disable", "systemd", "systemctl disable -- nginx"},
		{"svc-start", "systemd", "systemctl start -- nginx"},
		{"svc-start", "openrc", "rc-service nginx start"},
		{"svc-stop", "systemd", "systemctl stop -- nginx"},
		{"svc-stop", "openrc", "rc-service nginx stop"},
		{"svc-zap", "openrc", "rc-service nginx zap"},
		{"svc-restart", "systemd", "systemctl daemon-reload\nsystemctl try-restart -- nginx"},
		{"svc-restart", "openrc", "rc-service --ifstarted nginx restart"},
		{"svc-reload", "systemd", "systemctl daemon-reload\nsystemctl try-reload-or-restart -- nginx"},
		{"svc-reload", "openrc", "rc-service --ifstarted nginx reload"},
	}
	for _, sh := range svcShells(t) {
		for _, c := range cases {
			t.Run(sh[0]+"/"+c.op+"/"+c.manager, func(t *testing.T) {
				s, ok := Script(plan.OpName(c.op))
				if !ok {
					t.Fatalf("no script for %s", c.op)
				}
				bin, log := fakeManagers(t)
				code, stderr := runScript(t, sh, s.Text, bin+":/usr/bin:/bin", c.manager, "nginx")
				got, _ := os.ReadFile(log)
				if code != 0 || strings.TrimSpace(string(got)) != c.want {
					t.Errorf("exit %d (%s), ran:\n%s\nwant:\n%s", code, stderr, got, c.want)
				}
				// The manager's failure is the step's.
				if err := os.WriteFile(filepath.Join(filepath.Dir(log), "exit"), []byte("5"), 0o644); err != nil {
					t.Fatal(err)
				}
				if code, _ := runScript(t, sh, s.Text, bin+":/usr/bin:/bin", c.manager, "nginx"); code != 5 {
					t.Errorf("a manager exiting 5: the step exited %d", code)
				}
			})
		}
	}
}

// TestServiceScriptRefusals: a wrong argument exits 93 and runs no
// manager command.
func TestServiceScriptRefusals(t *testing.T) {
	sh := svcShells(t)[0]
	for _, op := range []string{"svc-enable", "svc-disable", "svc-start", "svc-stop", "svc-zap", "svc-restart", "svc-reload"} {
		s, _ := Script(plan.OpName(op))
		for _, args := range [][]string{
			{"systemd"},
			{"systemd", "-x"},
			{"systemd", "a b"},
			{"systemd", "a;reboot"},
			{"systemd", ""},
			{"launchd", "nginx"},
			{"systemd", "nginx", "extra"},
		} {
			if op == "svc-zap" && args[0] == "systemd" && len(args) == 2 && args[1] == "nginx" {
				continue
			}
			bin, log := fakeManagers(t)
			code, stderr := runScript(t, sh, s.Text, bin+":/usr/bin:/bin", args...)
			if _, err := os.Stat(log); code != 93 || err == nil || !strings.HasPrefix(stderr, "zap "+op+": ") {
				t.Errorf("%s %q: exit %d, stderr %q, a manager ran: %v", op, args, code, stderr, err == nil)
			}
		}
	}
	s, _ := Script("svc-zap")
	bin, _ := fakeManagers(t)
	if code, _ := runScript(t, sh, s.Text, bin+":/usr/bin:/bin", "systemd", "nginx"); code != 93 {
		t.Errorf("svc-zap on systemd: exit %d", code)
	}
}

// TestDisableEveryRunlevel: an OpenRC disable removes the service from each
// runlevel it is in (an /etc/runlevels of the test's own, the script's
// path replaced).
func TestDisableEveryRunlevel(t *testing.T) {
	for _, sh := range svcShells(t) {
		t.Run(sh[0], func(t *testing.T) {
			root := t.TempDir()
			for _, rl := range []string{"boot", "default", "nonetwork"} {
				if err := os.MkdirAll(filepath.Join(root, rl), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for _, rl := range []string{"boot", "nonetwork"} {
				if err := os.Symlink("/etc/init.d/httpd", filepath.Join(root, rl, "httpd")); err != nil {
					t.Fatal(err)
				}
			}
			s, _ := Script("svc-disable")
			text := strings.ReplaceAll(s.Text, "/etc/runlevels", root)
			bin, log := fakeManagers(t)
			code, stderr := runScript(t, sh, text, bin+":/usr/bin:/bin", "openrc", "httpd")
			got, _ := os.ReadFile(log)
			if want := "rc-update del httpd boot\nrc-update del httpd nonetwork\n"; code != 0 || string(got) != want {
				t.Errorf("exit %d (%s), ran:\n%s", code, stderr, got)
			}
		})
	}
}
