package service

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/detect/detecttest"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

func svcExit(code int, out string) detect.Answer {
	return detect.Answer{Status: detect.StatusOK, Exit: code, Output: out}
}

func svcBool(b bool) *bool { return &b }

// TestSystemdEnabledExits is systemctl is-enabled's exit-code map for a
// service declared enabled and one declared disabled (running unmanaged):
// 0 is enabled; non-zero is not enabled only when it prints one of
// detection.md's six words; anything else holds.
func TestSystemdEnabledExits(t *testing.T) {
	on := &Service{Manager: vocab.ManagerSystemd, Name: "nginx", Enabled: true}
	off := &Service{Manager: vocab.ManagerSystemd, Name: "nginx", Enabled: false}
	held := func(code string) detect.Result {
		return detect.Holding("systemctl is-enabled nginx exited " + code + " without saying the unit is disabled, masked, linked or not found: Zap can't tell whether it is enabled")
	}
	detecttest.Check(t, on, []detecttest.Case{
		{"0 enabled", []detect.Answer{svcExit(0, "enabled\n")}, detect.Converged()},
		{"0 static", []detect.Answer{svcExit(0, "static\n")}, detect.Converged()},
		{"1 disabled", []detect.Answer{svcExit(1, "disabled\n")}, detect.Drifted([]observation.Difference{diff("enabled", "disabled", "enabled")})},
		{"1 masked", []detect.Answer{svcExit(1, "masked\n")}, detect.Drifted([]observation.Difference{diff("enabled", "masked", "enabled")})},
		{"1 masked-runtime", []detect.Answer{svcExit(1, "masked-runtime\n")}, detect.Drifted([]observation.Difference{diff("enabled", "masked-runtime", "enabled")})},
		{"1 linked", []detect.Answer{svcExit(1, "linked\n")}, detect.Drifted([]observation.Difference{diff("enabled", "linked", "enabled")})},
		{"1 linked-runtime", []detect.Answer{svcExit(1, "linked-runtime\n")}, detect.Drifted([]observation.Difference{diff("enabled", "linked-runtime", "enabled")})},
		{"4 not-found", []detect.Answer{svcExit(4, "not-found\n")}, detect.Drifted([]observation.Difference{diff("enabled", "not-found", "enabled")})},
		{"1 printing nothing", []detect.Answer{svcExit(1, "")}, held("1")},
		{"1 another word", []detect.Answer{svcExit(1, "bad\n")}, held("1")},
		{"1 two words", []detect.Answer{svcExit(1, "disabled\nmasked\n")}, held("1")},
		{"127 no systemctl", []detect.Answer{svcExit(127, "")}, held("127")},
		{"timed out", []detect.Answer{detecttest.TimedOut}, detect.Holding("reading systemctl is-enabled nginx timed out after 30s")},
		{"no exit status", []detect.Answer{{Status: detect.StatusFailed, Detail: "killed"}}, detect.Holding("systemctl is-enabled nginx gave no exit status: killed")},
		{"sudo", []detect.Answer{{Status: detect.StatusSudoFailed}}, detect.Holding(detect.SudoFailed)},
	})
	detecttest.Check(t, off, []detecttest.Case{
		{"0 enabled", []detect.Answer{svcExit(0, "enabled\n")}, detect.Drifted([]observation.Difference{diff("enabled", "enabled", "disabled")})},
		{"1 disabled", []detect.Answer{svcExit(1, "disabled\n")}, detect.Converged()},
		{"1 masked", []detect.Answer{svcExit(1, "masked\n")}, detect.Converged()},
		{"4 not-found", []detect.Answer{svcExit(4, "not-found\n")}, detect.Converged()},
		{"1 failed to get", []detect.Answer{svcExit(1, "")}, held("1")},
	})
}

// TestSystemdActiveExits is systemctl is-active's map: 0 running, 3 and 4
// not running, any other exit holds.
func TestSystemdActiveExits(t *testing.T) {
	run := &Service{Manager: vocab.ManagerSystemd, Name: "nginx", Enabled: true, Running: svcBool(true)}
	stop := &Service{Manager: vocab.ManagerSystemd, Name: "nginx", Enabled: true, Running: svcBool(false)}
	enabled := svcExit(0, "enabled\n")
	held := func(code string) detect.Result {
		return detect.Holding("systemctl is-active nginx exited " + code + ": Zap can't tell whether it is running")
	}
	detecttest.Check(t, run, []detecttest.Case{
		{"0", []detect.Answer{enabled, svcExit(0, "active\n")}, detect.Converged()},
		{"3 inactive", []detect.Answer{enabled, svcExit(3, "inactive\n")}, detect.Drifted([]observation.Difference{diff("running", "inactive", "running")})},
		{"3 failed", []detect.Answer{enabled, svcExit(3, "failed\n")}, detect.Drifted([]observation.Difference{diff("running", "failed", "running")})},
		{"3 odd output", []detect.Answer{enabled, svcExit(3, "\x1b[31mx\n")}, detect.Drifted([]observation.Difference{diff("running", "inactive or failed", "running")})},
		{"4 no such unit", []detect.Answer{enabled, svcExit(4, "inactive\n")}, detect.Drifted([]observation.Difference{diff("running", "no such unit", "running")})},
		{"1", []detect.Answer{enabled, svcExit(1, "")}, held("1")},
		{"2", []detect.Answer{enabled, svcExit(2, "")}, held("2")},
		{"5", []detect.Answer{enabled, svcExit(5, "")}, held("5")},
		{"127", []detect.Answer{enabled, svcExit(127, "")}, held("127")},
		{"timed out", []detect.Answer{enabled, detecttest.TimedOut}, detect.Holding("reading systemctl is-active nginx timed out after 30s")},
		{"both drift", []detect.Answer{svcExit(1, "disabled\n"), svcExit(3, "inactive\n")}, detect.Drifted([]observation.Difference{diff("enabled", "disabled", "enabled"), diff("running", "inactive", "running")})},
		{"enabled probe holds first", []detect.Answer{svcExit(9, ""), svcExit(3, "")}, detect.Holding("systemctl is-enabled nginx exited 9 without saying the unit is disabled, masked, linked or not found: Zap can't tell whether it is enabled")},
	})
	detecttest.Check(t, stop, []detecttest.Case{
		{"0", []detect.Answer{enabled, svcExit(0, "active\n")}, detect.Drifted([]observation.Difference{diff("running", "running", "stopped")})},
		{"3", []detect.Answer{enabled, svcExit(3, "inactive\n")}, detect.Converged()},
		{"4", []detect.Answer{enabled, svcExit(4, "")}, detect.Converged()},
		{"1", []detect.Answer{enabled, svcExit(1, "")}, held("1")},
	})
}

// TestOpenRCExits is the OpenRC map: enabled is an entry in any runlevel
// (the probe's 0), none its 1, no /etc/runlevels its 2 (holds); rc-service
// status 0 started, 3 stopped, 32 crashed, 64 unsupervised (holds, saying
// what to do), any other exit holds.
func TestOpenRCExits(t *testing.T) {
	run := &Service{Manager: vocab.ManagerOpenRC, Name: "httpd", Enabled: true, Running: svcBool(true)}
	stop := &Service{Manager: vocab.ManagerOpenRC, Name: "httpd", Enabled: false, Running: svcBool(false)}
	in := svcExit(0, "default\n")
	out := svcExit(1, "")
	held := func(code string) detect.Result {
		return detect.Holding("rc-service httpd status exited " + code + ": Zap can't tell whether it is running")
	}
	detecttest.Check(t, run, []detecttest.Case{
		{"started", []detect.Answer{in, svcExit(0, "")}, detect.Converged()},
		{"stopped", []detect.Answer{in, svcExit(3, "")}, detect.Drifted([]observation.Difference{diff("running", "stopped", "running")})},
		{"crashed", []detect.Answer{in, svcExit(32, "")}, detect.Drifted([]observation.Difference{diff("running", "crashed", "running")})},
		{"unsupervised", []detect.Answer{in, svcExit(64, "")}, detect.Holding("rc-service httpd status says the service is unsupervised: its supervise-daemon died, and its daemon may still be running; check for the daemon, and run rc-service httpd zap by hand")},
		{"1", []detect.Answer{in, svcExit(1, "")}, held("1")},
		{"4 starting", []detect.Answer{in, svcExit(4, "")}, held("4")},
		{"8 stopping", []detect.Answer{in, svcExit(8, "")}, held("8")},
		{"16 inactive", []detect.Answer{in, svcExit(16, "")}, held("16")},
		{"127", []detect.Answer{in, svcExit(127, "")}, held("127")},
		{"in no runlevel", []detect.Answer{out, svcExit(0, "")}, detect.Drifted([]observation.Difference{diff("enabled", "disabled", "enabled")})},
		{"no /etc/runlevels", []detect.Answer{svcExit(2, ""), svcExit(0, "")}, detect.Holding("/etc/runlevels is not a directory: Zap can't tell whether httpd is enabled (is this an OpenRC host?)")},
		{"runlevel read exits 5", []detect.Answer{svcExit(5, ""), svcExit(0, "")}, detect.Holding("the read of /etc/runlevels for httpd exited 5: Zap can't tell whether it is enabled")},
		{"status timed out", []detect.Answer{in, detecttest.TimedOut}, detect.Holding("reading rc-service httpd status timed out after 30s")},
	})
	detecttest.Check(t, stop, []detecttest.Case{
		{"stopped, in no runlevel", []detect.Answer{out, svcExit(3, "")}, detect.Converged()},
		{"crashed reads not running", []detect.Answer{out, svcExit(32, "")}, detect.Converged()},
		{"started, in a runlevel", []detect.Answer{in, svcExit(0, "")}, detect.Drifted([]observation.Difference{diff("enabled", "enabled", "disabled"), diff("running", "running", "stopped")})},
	})
}

// TestServiceQueries: the probes run as the login user; running unmanaged
// reads only the enabled probe.
func TestServiceQueries(t *testing.T) {
	for _, c := range []struct {
		s    *Service
		want []string
	}{
		{&Service{Manager: vocab.ManagerSystemd, Name: "nginx"}, []string{SystemdEnabledProbe("nginx")}},
		{&Service{Manager: vocab.ManagerSystemd, Name: "getty@tty1.service", Running: svcBool(true)}, []string{SystemdEnabledProbe("getty@tty1.service"), "systemctl is-active -- 'getty@tty1.service'"}},
		{&Service{Manager: vocab.ManagerOpenRC, Name: "httpd", Running: svcBool(false)}, []string{OpenRCEnabledProbe("httpd"), OpenRCStatusProbe("httpd")}},
	} {
		qs := c.s.Queries()
		if len(qs) != len(c.want) {
			t.Fatalf("%s: %d queries, want %d", c.s.Name, len(qs), len(c.want))
		}
		for i, q := range qs {
			if q.Op != detect.OpProbe || q.Lane != observation.LaneLogin || q.Command.Text != c.want[i] || q.Command.Timeout != vocab.ProbeTimeout {
				t.Errorf("%s query %d: %+v %+v", c.s.Name, i, q, q.Command)
			}
		}
	}
}

// TestBuildService: launchd and a missing manager hold, reading nothing;
// enabled defaults to true.
func TestBuildService(t *testing.T) {
	s := &declaration.Service{Service: "nginx"}
	for mgr, want := range map[string]string{
		"launchd": "this zap has no launchd backend: its services can't be read",
		"":        "the target declares no service_manager (systemd or openrc), and Zap doesn't guess one",
	} {
		d := NewService(s, detect.Env{ServiceManager: mgr})
		if got := d.Verdict(nil); len(d.Queries()) != 0 || got.Verdict != observation.Undetermined || got.Reason != want {
			t.Errorf("%q: %+v", mgr, d.Verdict(nil))
		}
	}
	d := NewService(s, detect.Env{ServiceManager: "systemd"}).(*Service)
	if !d.Enabled || d.Running != nil {
		t.Errorf("built %+v", d)
	}
	off := false
	d = NewService(&declaration.Service{Service: "x", Enabled: &off, Running: &off}, detect.Env{ServiceManager: "openrc"}).(*Service)
	if d.Enabled || d.Running == nil || *d.Running {
		t.Errorf("built %+v", d)
	}
	for _, text := range []string{OpenRCEnabledProbe("a'b"), OpenRCStatusProbe("a'b"), SystemdEnabledProbe("a'b")} {
		if !strings.Contains(text, `'a'\''b'`) || strings.Contains(text, "NAME") {
			t.Errorf("a probe doesn't quote the name: %s", text)
		}
	}
}

// fakeTools writes FAKE commands into a directory of the test's own: each
// prints its stdout file's content (if any) and exits with its exit file's
// status. They stand in for systemctl and rc-service only to check how the
// probes read their answers (this machine's PID 1 isn't systemd and it runs
// no OpenRC); the lab hosts run the real ones.
func fakeTools(t *testing.T, tools map[string]string) string {
	dir := t.TempDir()
	for name, script := range tools {
		must(t, os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+script+"\n"), 0o755))
	}
	return dir
}

// TestSystemdEnabledProbeShells: the enabled probe passes is-enabled's
// answer through, and prints not-found for an older systemctl that printed
// nothing when systemd reports the unit's LoadState not-found.
func TestSystemdEnabledProbeShells(t *testing.T) {
	cases := []struct {
		name, systemctl string
		code            int
		out             string
	}{
		{"enabled", `[ "$1" = is-enabled ] && { echo enabled; exit 0; }; exit 9`, 0, "enabled\n"},
		{"disabled", `[ "$1" = is-enabled ] && { echo disabled; exit 1; }; exit 9`, 1, "disabled\n"},
		{"not-found printed", `[ "$1" = is-enabled ] && { echo not-found; exit 4; }; exit 9`, 4, "not-found\n"},
		{"252: nothing printed, unit not found", `case $1 in is-enabled) echo "Failed to get unit file state" >&2; exit 1;; show) echo not-found;; esac`, 1, "not-found\n"},
		{"nothing printed, unit loaded", `case $1 in is-enabled) exit 1;; show) echo loaded;; esac`, 1, ""},
		{"no systemd", `echo "System has not been booted with systemd" >&2; exit 1`, 1, ""},
	}
	for _, sh := range shells(t) {
		for _, c := range cases {
			t.Run(sh[0]+"/"+c.name, func(t *testing.T) {
				bin := fakeTools(t, map[string]string{"systemctl": c.systemctl})
				text := "PATH=" + bin + ":$PATH\n" + SystemdEnabledProbe("nginx")
				code, out := runProbe(t, sh, text)
				if code != c.code || out != c.out {
					t.Errorf("got %d %q, want %d %q", code, out, c.code, c.out)
				}
			})
		}
	}
}

// TestOpenRCStatusProbeSbin: a login user's PATH without the sbin
// directories (Debian's for an account other than root) still finds
// rc-service where OpenRC puts it (/usr/sbin replaced by a directory of the
// test's own); with it nowhere the probe exits 127, which holds.
func TestOpenRCStatusProbeSbin(t *testing.T) {
	for _, sh := range shells(t) {
		t.Run(sh[0], func(t *testing.T) {
			bin := fakeTools(t, map[string]string{"rc-service": `echo " * status: started"; exit 0`})
			text := strings.Replace(OpenRCStatusProbe("httpd"), ":/usr/sbin:", ":"+bin+":", 1)
			if text == OpenRCStatusProbe("httpd") {
				t.Fatal("the probe doesn't look in /usr/sbin")
			}
			code, out := runProbe(t, sh, "PATH=/usr/bin:/bin\n"+text)
			if code != 0 || out != " * status: started\n" {
				t.Errorf("rc-service in sbin: %d %q, want 0 and its status", code, out)
			}
			empty := t.TempDir()
			code, _ = runProbe(t, sh, "PATH=/usr/bin:/bin\n"+strings.Replace(OpenRCStatusProbe("httpd"), ":/usr/sbin:", ":"+empty+":", 1))
			for _, d := range []string{"/usr/bin", "/bin", "/usr/local/sbin", "/sbin"} {
				if _, err := os.Stat(d + "/rc-service"); err == nil {
					t.Skipf("this machine has an rc-service of its own, in %s", d)
				}
			}
			if code != 127 {
				t.Errorf("no rc-service anywhere: exit %d, want 127", code)
			}
		})
	}
}

// TestOpenRCStatusProbeShells: rc-service's exit passes through, but for
// 1 with no script in /etc/init.d or /usr/local/etc/init.d (both replaced
// by directories of the test's own), which reads as 3, no such script.
func TestOpenRCStatusProbeShells(t *testing.T) {
	for _, sh := range shells(t) {
		t.Run(sh[0], func(t *testing.T) {
			root := t.TempDir()
			text := strings.NewReplacer("/usr/local/etc/init.d", root+"/local", "/etc/init.d", root+"/initd").Replace(OpenRCStatusProbe("httpd"))
			for _, c := range []struct {
				exit, script string
				want         int
			}{
				{"0", "", 0}, {"3", "", 3}, {"32", "", 32}, {"64", "", 64},
				{"1", "", 3}, {"1", "initd", 1}, {"1", "local", 1}, {"2", "", 2},
			} {
				must(t, os.RemoveAll(filepath.Join(root, "initd")))
				must(t, os.RemoveAll(filepath.Join(root, "local")))
				if c.script != "" {
					must(t, os.MkdirAll(filepath.Join(root, c.script), 0o755))
					must(t, os.WriteFile(filepath.Join(root, c.script, "httpd"), nil, 0o755))
				}
				bin := fakeTools(t, map[string]string{"rc-service": `echo " * status: x"; exit ` + c.exit})
				code, out := runProbe(t, sh, "PATH="+bin+":$PATH\n"+text)
				if code != c.want || out != " * status: x\n" {
					t.Errorf("rc-service exiting %s (script in %q): %d %q, want %d", c.exit, c.script, code, out, c.want)
				}
			}
		})
	}
}

// TestOpenRCEnabledProbeShells runs the runlevel probe against an
// /etc/runlevels of the test's own.
func TestOpenRCEnabledProbeShells(t *testing.T) {
	for _, sh := range shells(t) {
		t.Run(sh[0], func(t *testing.T) {
			root := t.TempDir()
			text := strings.ReplaceAll(OpenRCEnabledProbe("httpd"), "/etc/runlevels", root+"/runlevels")
			if code, _ := runProbe(t, sh, text); code != 2 {
				t.Errorf("no runlevels: exit %d", code)
			}
			for _, rl := range []string{"boot", "default", "sysinit"} {
				must(t, os.MkdirAll(filepath.Join(root, "runlevels", rl), 0o755))
			}
			if code, out := runProbe(t, sh, text); code != 1 || out != "" {
				t.Errorf("in none: %d %q", code, out)
			}
			must(t, os.Symlink("/etc/init.d/httpd", filepath.Join(root, "runlevels", "default", "httpd")))
			must(t, os.Symlink("/nowhere", filepath.Join(root, "runlevels", "boot", "httpd")))
			if code, out := runProbe(t, sh, text); code != 0 || out != "boot\ndefault\n" {
				t.Errorf("in two: %d %q", code, out)
			}
		})
	}
}

// shells are the shells the probes must work under: dash (sh on Debian),
// bash and BusyBox ash.
func shells(t *testing.T) [][]string {
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

// runProbe runs text under shell with a bare PATH: its exit and stdout.
func runProbe(t *testing.T, shell []string, text string) (int, string) {
	t.Helper()
	cmd := exec.Command(shell[0], append(shell[1:], "-c", text)...)
	cmd.Env = []string{"LC_ALL=C", "PATH=/usr/bin:/bin"}
	out, err := cmd.Output()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), string(out)
	case err != nil:
		t.Fatal(err)
	}
	return 0, string(out)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func diff(field, observed, desired string) observation.Difference {
	return observation.Difference{Field: field, Observed: observed, Desired: desired}
}
