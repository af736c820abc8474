package ts_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestHardenedSystemdUnit(t *testing.T) {
	m := load(t, "recipes/service.ts")
	var p struct {
		Path, Mode string
		Content    struct{ Type, Content string }
	}
	if err := json.Unmarshal([]byte(m.json(t, "hardened_systemd_unit", m.js(t, `{name: 'app', user: 'app', command: '/usr/bin/app', command_args: "--greeting 'a b' 100%", env_file: '/etc/app/env', read_write_paths: ['/var/lib/app'], bind_low_ports: true, memory_deny_write_execute: false, after: ['postgresql.service']}`))), &p); err != nil {
		t.Fatal(err)
	}
	if p.Path != "/etc/systemd/system/app.service" || p.Mode != "644" || p.Content.Type != "inline" {
		t.Errorf("payload: %+v", p)
	}
	for _, want := range []string{
		"User=app\nGroup=app\n",
		"ExecStart=/usr/bin/app --greeting 'a b' 100%%\n",
		"EnvironmentFile=/etc/app/env\n",
		"After=network-online.target postgresql.service\n",
		"NoNewPrivileges=yes\n", "ProtectSystem=strict\n", "ReadWritePaths=/var/lib/app\n",
		"CapabilityBoundingSet=CAP_NET_BIND_SERVICE\n", "MemoryDenyWriteExecute=no\n",
		"SystemCallFilter=@system-service\n", "PrivateTmp=yes\n", "ProtectHome=yes\n",
		"[Install]\nWantedBy=multi-user.target\n",
	} {
		if !strings.Contains(p.Content.Content, want) {
			t.Errorf("the unit lacks %q:\n%s", want, p.Content.Content)
		}
	}
	for _, c := range []struct{ args, want string }{
		{`{name: 'app', user: '#0', command: '/x'}`, "starts with #"},
		{`{name: 'app', user: '', command: '/x'}`, "the user is empty"},
		{`{name: 'app', user: 'root', command: '/x'}`, "the user is root"},
		{`{name: 'app', user: '\uFDD0U\uFDD1', command: '/x'}`, "the user is a reference"},
		{`{name: 'app', user: 'app', command: 'app'}`, `command "app" is not an absolute path`},
		{`{name: 'app', user: 'app', command: '/x', env_file: '\uFDD0F\uFDD1'}`, "env_file takes no reference"},
		{`{name: 'app', user: 'app', command: '/x', command_args: "a\nExecStartPre=/bin/sh"}`, "command_args"},
		{`{name: 'App Server', user: 'app', command: '/x'}`, "not a service name"},
	} {
		m.refused(t, c.want, "hardened_systemd_unit", m.js(t, c.args))
		m.refused(t, c.want, "hardened_openrc_service", m.js(t, c.args))
	}
}

func TestHardenedOpenRCService(t *testing.T) {
	m := load(t, "recipes/service.ts")
	var p struct {
		Path, Mode string
		Content    struct{ Content string }
	}
	if err := json.Unmarshal([]byte(m.json(t, "hardened_openrc_service", m.js(t, `{name: 'app', user: 'app', command: '/usr/bin/app', command_args: '--port 3000', env_file: '/etc/app/env', working_directory: '/srv/app'}`))), &p); err != nil {
		t.Fatal(err)
	}
	if p.Path != "/etc/init.d/app" || p.Mode != "755" {
		t.Errorf("payload: %+v", p)
	}
	script := p.Content.Content
	for _, want := range []string{
		"#!/sbin/openrc-run\n",
		"timeout 10 su -s /bin/sh -c \"$_zap_env_reader\" 'app' zap-env check '/etc/app/env' >\"$_zap_dir/out\" 2>&1 </dev/null",
		"_zap_dir=$(mktemp -d /run/zap-env.XXXXXX)",
		"head -c 4096",
		"--chuid 'app:app'",
		"--chdir '/srv/app'",
		"--exec /bin/sh -- -c \"$_zap_env_reader\" zap-env run '/etc/app/env' '/usr/bin/app' --port 3000",
	} {
		if !strings.Contains(script, want) {
			t.Errorf("the script lacks %q:\n%s", want, script)
		}
	}
	if strings.Contains(script, ". /etc/app/env") || strings.Contains(script, "source") {
		t.Errorf("the script sources the env file:\n%s", script)
	}
	// Without an env file the daemon is the command itself, and nothing
	// of the reader is there.
	var plain struct{ Content struct{ Content string } }
	if err := json.Unmarshal([]byte(m.json(t, "hardened_openrc_service", m.js(t, `{name: 'app', user: 'app', group: 'web', command: '/usr/bin/app', command_args: '--port 3000'}`))), &plain); err != nil {
		t.Fatal(err)
	}
	if want := "--chuid 'app:web' \\\n\t\t--umask 077 \\\n\t\t--exec '/usr/bin/app' -- --port 3000\n"; !strings.Contains(plain.Content.Content, want) {
		t.Errorf("the script without an env file lacks %q:\n%s", want, plain.Content.Content)
	}
	if strings.Contains(plain.Content.Content, "_zap_") {
		t.Errorf("the script without an env file carries the reader:\n%s", plain.Content.Content)
	}
	// Both scripts are sh: dash reads them (not runs them) without a
	// syntax error.
	for i, text := range []string{script, plain.Content.Content} {
		f := filepath.Join(t.TempDir(), "app")
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("sh", "-n", f).CombinedOutput(); err != nil {
			t.Errorf("script %d: sh -n: %v\n%s", i, err, out)
		}
	}
}

// TestOpenRCEnvReader runs the reader the OpenRC script carries, under
// dash and BusyBox's ash (Alpine's sh), over env files in and out of its
// format.
func TestOpenRCEnvReader(t *testing.T) {
	m := load(t, "recipes/service.ts")
	reader := m.constant(t, "OPENRC_ENV_READER").(string)
	if strings.Contains(reader, "'") {
		t.Fatal("the reader holds a single quote, so the script can't keep it in one")
	}
	shells := [][]string{{"sh"}}
	if bb, err := exec.LookPath("busybox"); err == nil {
		shells = append(shells, []string{bb, "sh"})
	} else {
		t.Log("no busybox: the reader runs under sh alone")
	}
	good := "# comment\n  ; another\n\nA=1\nB='two words $x \\ \"q\"'\nC=literal $HOME # not a comment\nD=\nA=later\nE=x=y\n"
	bad := []struct{ body, want string }{
		{"A=1\n B=2\n", "line 2 is not NAME=VALUE"},
		{"A = 1\n", "line 1: the name is not letters"},
		{"no equals\n", "line 1 is not NAME=VALUE"},
		{"1A=x\n", "line 1 is not NAME=VALUE"},
		{"_zap_mode=run\n", "line 1: a name may not begin _zap_"},
		{"A= x\n", "line 1: a value may not start or end with a blank"},
		{"A=x \n", "line 1: a value may not start or end with a blank"},
		{"A=\"x\"\n", "line 1: a value may not start with a double quote"},
		{"A=a\\b\n", "line 1: a value may not hold a backslash"},
		{"A='x\nB=y'\n", "line 1: a quoted value must end the line"},
		{"A='x'y'\n", "line 1: a quoted value holds no other quote"},
		{"A='x' \n", "line 1: a quoted value must end the line"},
		{"A=1\r\n", "line 1 holds a carriage return"},
		{"OK=1\nA=x\\\n", "line 2: a value may not hold a backslash"},
	}
	// The reader refuses to run as root, so as root the test runs it as
	// nobody, in a directory nobody can read.
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		cred = &syscall.Credential{Uid: 65534, Gid: 65534}
	}
	dir, err := os.MkdirTemp("", "zap-env-reader-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, sh := range shells {
		name := strings.Join(sh, " ")
		run := func(args ...string) (string, error) {
			cmd := exec.Command(sh[0], append(append(sh[1:], "-c", reader, "zap-env"), args...)...)
			cmd.Env = []string{"PATH=/usr/bin:/bin", "KEEP=1"}
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
			out, err := cmd.CombinedOutput()
			return string(out), err
		}
		f := filepath.Join(dir, "good.env")
		if err := os.WriteFile(f, []byte(good), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := run("check", f); err != nil || out != "" {
			t.Errorf("%s: check of a good file: %v %q", name, err, out)
		}
		out, err := run("run", f, "/usr/bin/env")
		if err != nil {
			t.Fatalf("%s: run: %v\n%s", name, err, out)
		}
		for _, want := range []string{"A=later\n", "B=two words $x \\ \"q\"\n", "C=literal $HOME # not a comment\n", "D=\n", "E=x=y\n", "KEEP=1\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: run's environment lacks %q:\n%s", name, want, out)
			}
		}
		if strings.Contains(out, "_zap_") {
			t.Errorf("%s: the reader's own variables reached the command:\n%s", name, out)
		}
		for i, c := range bad {
			f := filepath.Join(dir, "bad.env")
			if err := os.WriteFile(f, []byte(c.body), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, mode := range []string{"check", "run"} {
				out, err := run(mode, f, "/bin/echo", "STARTED")
				if err == nil || !strings.Contains(out, c.want) || strings.Contains(out, "STARTED") {
					t.Errorf("%s: %s of bad file %d %q: %v %q, want refused with %q", name, mode, i, c.body, err, out, c.want)
				}
			}
		}
		// A file that can't be read is refused naming the user; a FIFO
		// isn't read in time (the script's timeout ends the check).
		if out, err := run("check", filepath.Join(dir, "absent.env")); err == nil || !strings.Contains(out, "cannot be read by the user") {
			t.Errorf("%s: an absent file: %v %q", name, err, out)
		}
		if cred != nil {
			secret := filepath.Join(dir, "root.env")
			if err := os.WriteFile(secret, []byte("A=1\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if out, err := run("check", secret); err == nil || !strings.Contains(out, "cannot be read by the user nobody") {
				t.Errorf("%s: root's 600 file: %v %q", name, err, out)
			}
			cmd := exec.Command(sh[0], append(sh[1:], "-c", reader, "zap-env", "run", f, "/bin/echo", "STARTED")...)
			if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "is read as root") || strings.Contains(string(out), "STARTED") {
				t.Errorf("%s: run as root: %v %q", name, err, out)
			}
		}
		fifo := filepath.Join(dir, "fifo.env")
		_ = os.Remove(fifo)
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("timeout", "1", sh[0])
		cmd.Args = append(append(cmd.Args, sh[1:]...), "-c", reader, "zap-env", "check", fifo)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		if err := cmd.Run(); err == nil || cmd.ProcessState.ExitCode() != 124 {
			t.Errorf("%s: a FIFO: %v, want the timeout's 124", name, err)
		}
	}
}
