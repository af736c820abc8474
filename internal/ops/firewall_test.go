package ops

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/plan"
)

// fakeUfw writes a FAKE ufw into a directory of the test's own: it only
// appends its argv, one line, to the log and exits with the status in the
// file exit (0 when none). It checks the command lines the scripts build;
// the lab script firewall_ufw.txtar runs the real ufw.
func fakeUfw(t *testing.T) (bin, log string) {
	dir := t.TempDir()
	bin, log = filepath.Join(dir, "bin"), filepath.Join(dir, "log")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	fake := "#!/bin/sh\nfor a do printf '[%s]' \"$a\"; done >>'" + log + "'\necho >>'" + log + "'\nif [ -f '" + dir + "/exit' ]; then exit \"$(cat '" + dir + "/exit')\"; fi\n"
	if err := os.WriteFile(filepath.Join(bin, "ufw"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, log
}

// TestUfwScriptCommandLines: each ufw operation's command line, each
// argument whole, under dash, bash and BusyBox ash; ufw's failure fails
// the step.
func TestUfwScriptCommandLines(t *testing.T) {
	cases := []struct {
		op   string
		args []string
		want string
	}{
		{"firewall-ufw-allow", []string{"22/tcp"}, "[allow][22/tcp]"},
		{"firewall-ufw-allow", []string{"53/udp"}, "[allow][53/udp]"},
		{"firewall-ufw-allow", []string{"65535"}, "[allow][65535]"},
		{"firewall-ufw-allow", []string{"1"}, "[allow][1]"},
		{"firewall-ufw-allow", []string{"OpenSSH"}, "[allow][OpenSSH]"},
		{"firewall-ufw-allow", []string{"Nginx Full"}, "[allow][Nginx Full]"},
		{"firewall-ufw-allow", []string{"$(touch x) *"}, "[allow][$(touch x) *]"},
		{"firewall-ufw-default", []string{"incoming", "deny"}, "[default][deny][incoming]"},
		{"firewall-ufw-default", []string{"outgoing", "reject"}, "[default][reject][outgoing]"},
		{"firewall-ufw-default", []string{"incoming", "allow"}, "[default][allow][incoming]"},
		{"firewall-ufw-enable", nil, "[--force][enable]"},
	}
	for _, sh := range svcShells(t) {
		for i, c := range cases {
			t.Run(fmt.Sprintf("%s/%s/%d", sh[0], c.op, i), func(t *testing.T) {
				s, ok := Script(plan.OpName(c.op))
				if !ok {
					t.Fatalf("no script for %s", c.op)
				}
				bin, log := fakeUfw(t)
				code, stderr := runScript(t, sh, s.Text, bin+":/usr/bin:/bin", c.args...)
				got, _ := os.ReadFile(log)
				if code != 0 || strings.TrimSpace(string(got)) != c.want {
					t.Errorf("exit %d (%s), ran:\n%s\nwant:\n%s", code, stderr, got, c.want)
				}
				if err := os.WriteFile(filepath.Join(filepath.Dir(log), "exit"), []byte("5"), 0o644); err != nil {
					t.Fatal(err)
				}
				if code, stderr := runScript(t, sh, s.Text, bin+":/usr/bin:/bin", c.args...); code != 1 || !strings.HasPrefix(stderr, "zap "+c.op+": ") {
					t.Errorf("ufw exiting 5: the step exited %d (%s), want 1", code, stderr)
				}
			})
		}
	}
}

// TestUfwScriptRefusals: a wrong argument (an option, a port out of
// range, a line break, a direction or policy ufw doesn't have, the wrong
// count) exits 93 and runs no ufw; no ufw at all exits 94.
func TestUfwScriptRefusals(t *testing.T) {
	for _, sh := range svcShells(t) {
		for _, c := range []struct {
			op   string
			args []string
		}{
			{"firewall-ufw-allow", nil},
			{"firewall-ufw-allow", []string{""}},
			{"firewall-ufw-allow", []string{"-x"}},
			{"firewall-ufw-allow", []string{"--dry-run"}},
			{"firewall-ufw-allow", []string{"0"}},
			{"firewall-ufw-allow", []string{"65536/tcp"}},
			{"firewall-ufw-allow", []string{"022/tcp"}},
			{"firewall-ufw-allow", []string{"99999999999999999999"}},
			{"firewall-ufw-allow", []string{"Open\nSSH"}},
			{"firewall-ufw-allow", []string{"22/tcp", "extra"}},
			{"firewall-ufw-default", []string{"incoming"}},
			{"firewall-ufw-default", []string{"routed", "deny"}},
			{"firewall-ufw-default", []string{"incoming", "drop"}},
			{"firewall-ufw-default", []string{"incoming", "-deny"}},
			{"firewall-ufw-default", []string{"deny", "incoming"}},
			{"firewall-ufw-enable", []string{"now"}},
		} {
			s, _ := Script(plan.OpName(c.op))
			bin, log := fakeUfw(t)
			code, stderr := runScript(t, sh, s.Text, bin+":/usr/bin:/bin", c.args...)
			if _, err := os.Stat(log); code != 93 || err == nil || !strings.HasPrefix(stderr, "zap "+c.op+": ") {
				t.Errorf("%s %s %q: exit %d, stderr %q, ufw ran: %v", sh[0], c.op, c.args, code, stderr, err == nil)
			}
		}
		if _, err := os.Stat("/usr/sbin/ufw"); err == nil {
			t.Logf("ufw is installed on this machine: the no-ufw case isn't tried")
			continue
		}
		for op, args := range map[string][]string{"firewall-ufw-allow": {"22/tcp"}, "firewall-ufw-default": {"incoming", "deny"}, "firewall-ufw-enable": nil} {
			s, _ := Script(plan.OpName(op))
			code, stderr := runScript(t, sh, s.Text, t.TempDir()+":/usr/bin:/bin", args...)
			if code != 94 || !strings.Contains(stderr, "ufw is not installed") {
				t.Errorf("%s %s with no ufw: exit %d, stderr %q", sh[0], op, code, stderr)
			}
		}
	}
}
