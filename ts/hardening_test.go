package ts_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestCertbotPreflightRuns runs the DNS preflight under each shell a target
// may have (dash, BusyBox ash) with getent on this machine. Names that are
// IP literals resolve to themselves with no resolver, so no network is
// needed: one resolving inside the expected set passes silently; one
// outside it, and an expected address that isn't an IP literal, refuse
// with exit 1 and a reason each on stderr.
func TestCertbotPreflightRuns(t *testing.T) {
	if _, err := exec.LookPath("getent"); err != nil {
		t.Skip("no getent on this machine to resolve with")
	}
	m := load(t, "recipes/certbot.ts")
	shells := [][]string{{"sh"}}
	if _, err := exec.LookPath("busybox"); err == nil {
		shells = append(shells, []string{"busybox", "sh"})
	} else {
		t.Log("no busybox: the preflight runs under sh alone")
	}
	for _, c := range []struct {
		names, expected string
		code            int
		want            []string
	}{
		{`['127.0.0.1']`, `['127.0.0.1', '192.0.2.1']`, 0, nil},
		{`['127.0.0.1', '127.0.0.2']`, `['127.0.0.1']`, 1, []string{
			"certbot preflight: 127.0.0.2 resolves to 127.0.0.2, which isn't in expected_addresses",
			"certbot preflight: refused: nothing was stopped and certbot did not run",
		}},
		{`['127.0.0.1']`, `['127.0.0.1', 'host.example']`, 1, []string{
			"certbot preflight: expected address 'host.example' is not an IP literal: declare expected_addresses",
		}},
	} {
		script := m.str(t, "certbot_dns_preflight", m.js(t, c.names), m.js(t, c.expected))
		for _, sh := range shells {
			cmd := exec.Command(sh[0], append(sh[1:], "-c", script)...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatalf("%v: %v", sh, err)
			}
			if code != c.code {
				t.Errorf("%v, names %s, expected %s: exit %d, want %d (stderr %q)", sh, c.names, c.expected, code, c.code, stderr.String())
			}
			for _, w := range c.want {
				if !strings.Contains(stderr.String(), w+"\n") {
					t.Errorf("%v, names %s, expected %s: stderr %q lacks %q", sh, c.names, c.expected, stderr.String(), w)
				}
			}
			if c.want == nil && stderr.Len() > 0 {
				t.Errorf("%v, names %s: a pass printed %q", sh, c.names, stderr.String())
			}
		}
	}
}

// TestFuzAppEnvReadByOpenRCReader: the env file fuz_app_env_base makes,
// its variables filled in as Zap fills them, is read by the OpenRC
// service's reader (OPENRC_ENV_READER, as the unprivileged user nobody)
// into exactly the values given: every value is single-quoted, so blanks,
// # and , in it stay as written.
func TestFuzAppEnvReadByOpenRCReader(t *testing.T) {
	reader := load(t, "recipes/service.ts").constant(t, "OPENRC_ENV_READER").(string)
	m := load(t, "recipes/fuz_app.ts")
	proxies := m.json(t, "fuz_app_trusted_proxies", m.js(t, `{proxies: ['127.0.0.1', '10.0.0.0/8']}`))
	spec := m.json(t, "fuz_app_env_base", m.js(t, `{path: '/e', owner: 'app', port: 4041,
		database_url: 'postgres://app:pw@127.0.0.1/app?sslmode=disable&x=1',
		secret_cookie_keys: 'a#b c;d__0123456789abcdefghijklmnopqrstuv',
		allowed_origins: 'https://a.example, https://b.example',
		bootstrap_token_path: '/srv/app/bootstrap token',
		extra: [`+proxies+`]}`))
	var file struct {
		Content struct {
			Template string            `json:"template"`
			Vars     map[string]string `json:"vars"`
		} `json:"content"`
	}
	if err := json.Unmarshal([]byte(spec), &file); err != nil {
		t.Fatal(err)
	}
	body := file.Content.Template
	for name, value := range file.Content.Vars {
		body = strings.ReplaceAll(body, "{{"+name+"}}", value)
	}
	// A directory nobody can enter (t.TempDir's parent is 0700).
	dir, err := os.MkdirTemp("", "zap-fuz-env-")
	if err == nil {
		t.Cleanup(func() { os.RemoveAll(dir) })
		err = os.Chmod(dir, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
	env := filepath.Join(dir, "app.env")
	if err := os.WriteFile(env, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", reader, "zap-env", "run", env, "/usr/bin/env")
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	if os.Geteuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the reader refused the file:\n%s\n%s", out, body)
	}
	for _, want := range []string{
		"NODE_ENV=production", "PORT=4041", "HOST=127.0.0.1",
		"DATABASE_URL=postgres://app:pw@127.0.0.1/app?sslmode=disable&x=1",
		"SECRET_COOKIE_KEYS=a#b c;d__0123456789abcdefghijklmnopqrstuv",
		"ALLOWED_ORIGINS=https://a.example, https://b.example",
		"BOOTSTRAP_TOKEN_PATH=/srv/app/bootstrap token",
		"TRUSTED_PROXIES=127.0.0.1,10.0.0.0/8",
	} {
		if !strings.Contains(string(out), "\n"+want+"\n") && !strings.HasPrefix(string(out), want+"\n") {
			t.Errorf("the environment lacks %q:\n%s", want, out)
		}
	}
}
