package ops

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/plan"
)

// runOp runs the named operation's script as the executor hands it over
// (sh -s -- ARGS, the script on stdin), with env, and returns its exit
// status and stderr.
func runOp(t *testing.T, shell string, name plan.OpName, env []string, args ...string) (int, string) {
	t.Helper()
	s, ok := Script(name)
	if !ok {
		t.Fatalf("no script %s", name)
	}
	return runInput(t, shell, []byte(s.Text), env, args...)
}

// runInput runs shell -s -- ARGS reading stdin, with env alone, and
// returns its exit status and stderr.
func runInput(t *testing.T, shell string, stdin []byte, env []string, args ...string) (int, string) {
	t.Helper()
	return runShell(t, shell, bytes.NewReader(stdin), env, append([]string{"-s", "--"}, args...)...)
}

// runStream runs text as a streamed script runs (`SHELL -c TEXT sh ARGS`,
// StreamInvocation) with stdin, and returns the exit status and stderr.
func runStream(t *testing.T, shell, text string, stdin io.Reader, env []string, args ...string) (int, string) {
	t.Helper()
	return runShell(t, shell, stdin, env, append([]string{"-c", text, "sh"}, args...)...)
}

// runShell runs shell with args, stdin and env, and returns the exit status
// and stderr.
func runShell(t *testing.T, shell string, stdin io.Reader, env []string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(shell, args...)
	cmd.Stdin = stdin
	cmd.Env = env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), stderr.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, stderr.String()
}

// shells are the shells an operation script must work under: dash, bash
// and BusyBox ash, each where it is installed.
func shells(t *testing.T) []string {
	var out []string
	for _, s := range []string{"dash", "bash", "busybox"} {
		if p, err := exec.LookPath(s); err == nil {
			if s == "busybox" {
				dir := t.TempDir()
				if err := os.Symlink(p, filepath.Join(dir, "ash")); err != nil {
					t.Fatal(err)
				}
				p = filepath.Join(dir, "ash")
			}
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		t.Skip("none of dash, bash and busybox is installed")
	}
	return out
}

// stub writes a stand-in for the manager's command into a directory of its
// own: it records its arguments one a line, DEBIAN_FRONTEND, and whether
// its stdin was empty, and exits 0. No Alpine host is reachable here, so
// this is how apk's command lines are checked; apt's are also run for real
// (TestPkgInstallAptReal).
func stub(t *testing.T, name string) (dir, record string) {
	t.Helper()
	dir = t.TempDir()
	record = filepath.Join(dir, "record")
	script := "#!/bin/sh\n{ for a in \"$@\"; do printf 'arg %s\\n' \"$a\"; done; printf 'frontend %s\\n' \"${DEBIAN_FRONTEND-unset}\"\n" +
		"if IFS= read -r line; then echo 'stdin not empty'; else echo 'stdin empty'; fi; } >" + record + "\n"
	if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, record
}

// TestPkgCommandLines: the four package operations' command lines, under
// every shell, with the names as words of their own after --.
func TestPkgCommandLines(t *testing.T) {
	for _, sh := range shells(t) {
		for _, c := range []struct {
			op   plan.OpName
			cmd  string
			args []string
			want string
		}{
			{"pkg-update-apt", "apt-get", nil, "arg update\narg -q\narg -o\narg DPkg::Lock::Timeout=120\nfrontend noninteractive\nstdin empty\n"},
			{"pkg-install-apt", "apt-get", []string{"nginx-light", "libc6:i386", "memtest86+", "curl=7.88.1-10+deb12u5", "jq/bookworm-backports", "vim=2:9.0.1378-2"},
				"arg install\narg -y\narg -q\narg --no-install-recommends\narg -o\narg DPkg::Lock::Timeout=120\narg -o\narg Dpkg::Options::=--force-confdef\narg -o\narg Dpkg::Options::=--force-confold\narg --\n" +
					"arg nginx-light\narg libc6:i386\narg memtest86+\narg curl=7.88.1-10+deb12u5\narg jq/bookworm-backports\narg vim=2:9.0.1378-2\nfrontend noninteractive\nstdin empty\n"},
			{"pkg-update-apk", "apk", nil, "arg update\nfrontend unset\nstdin empty\n"},
			{"pkg-install-apk", "apk", []string{"curl", "so:libc.musl-x86_64.so.1", "cmd:bash", "py3-pip=23.1-r0", "nginx~1.24", "zig@testing"},
				"arg add\narg --\narg curl\narg so:libc.musl-x86_64.so.1\narg cmd:bash\narg py3-pip=23.1-r0\narg nginx~1.24\narg zig@testing\nfrontend unset\nstdin empty\n"},
		} {
			dir, record := stub(t, c.cmd)
			code, stderr := runOp(t, sh, c.op, []string{"PATH=" + dir + ":/usr/bin:/bin"}, c.args...)
			if code != 0 {
				t.Fatalf("%s %s: exit %d: %s", sh, c.op, code, stderr)
			}
			got, err := os.ReadFile(record)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("%s %s ran:\n%s\nwant:\n%s", sh, c.op, got, c.want)
			}
		}
	}
}

// TestPkgRefusals: a name that isn't one word, no name, or an argument to
// an update exits 93 before the manager runs.
func TestPkgRefusals(t *testing.T) {
	for _, sh := range shells(t) {
		for _, c := range []struct {
			op   plan.OpName
			args []string
		}{
			{"pkg-install-apt", nil},
			{"pkg-install-apk", nil},
			{"pkg-update-apt", []string{"x"}},
			{"pkg-update-apk", []string{"x"}},
			{"pkg-install-apt", []string{"curl", "a b"}},
			{"pkg-install-apt", []string{"-y"}},
			{"pkg-install-apt", []string{"curl-"}},
			{"pkg-install-apt", []string{""}},
			{"pkg-install-apt", []string{"$(id)"}},
			{"pkg-install-apk", []string{"!curl"}},
			{"pkg-install-apk", []string{"curl>=1"}},
			{"pkg-install-apk", []string{"é"}},
			{"pkg-install-apk", []string{"a\nb"}},
		} {
			dir, record := stub(t, "apt-get")
			stub2 := filepath.Join(dir, "apk")
			if err := os.Symlink(filepath.Join(dir, "apt-get"), stub2); err != nil {
				t.Fatal(err)
			}
			code, stderr := runOp(t, sh, c.op, []string{"PATH=" + dir + ":/usr/bin:/bin", "LANG=en_US.UTF-8"}, c.args...)
			if code != 93 || !strings.HasPrefix(stderr, "zap "+string(c.op)+": ") {
				t.Errorf("%s %s %q: exit %d, stderr %q; want 93", sh, c.op, c.args, code, stderr)
			}
			if _, err := os.Stat(record); err == nil {
				t.Errorf("%s %s %q: the manager ran", sh, c.op, c.args)
			}
		}
	}
}

// TestPkgInstallAptReal runs pkg-install-apt through the real apt-get for a
// package this machine has, pinned at the version it has (so apt-get has
// nothing to do and changes nothing), and for a name apt doesn't know,
// which fails with apt-get's own status.
func TestPkgInstallAptReal(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("apt-get install needs root")
	}
	if _, err := exec.LookPath("apt-get"); err != nil {
		t.Skip("apt-get isn't installed here")
	}
	out, err := exec.Command("dpkg-query", "-W", "-f=${Version}", "coreutils").Output()
	if err != nil {
		t.Skipf("coreutils' version isn't known to dpkg here: %v", err)
	}
	env := []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin"}
	if code, stderr := runOp(t, "sh", "pkg-install-apt", env, "coreutils="+string(out)); code != 0 {
		t.Fatalf("installing the installed coreutils: exit %d: %s", code, stderr)
	}
	if code, _ := runOp(t, "sh", "pkg-install-apt", env, "zap-no-such-package"); code != 100 {
		t.Fatalf("installing an unknown package: exit %d, want apt-get's 100", code)
	}
}
