package ts_test

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// TestHardeningRecipesPure: the SSH, firewall, fail2ban, Deno, PostgreSQL,
// certbot and fuz_app recipes each give the same output for the same
// arguments, call after call and in a fresh runtime.
func TestHardeningRecipesPure(t *testing.T) {
	for _, c := range []struct{ file, fn, args string }{
		{"recipes/ssh.ts", "debian_ssh_hardening", `{allow_users: ['deploy', '\uFDD0DEPLOY_USER\uFDD1'], depends_on: ['u']}`},
		{"recipes/ssh.ts", "alpine_ssh_hardening", `{allow_users: ['ops'], port: 2222, permit_root_login: 'prohibit-password'}`},
		{"recipes/firewall.ts", "debian_web_firewall", `{extra: [{port: 5353, proto: 'udp'}]}`},
		{"recipes/firewall.ts", "alpine_web_firewall", `{ssh_port: 2222, web: false}`},
		{"recipes/fail2ban.ts", "fail2ban_jail", `{backend: 'systemd', port: 2222}`},
		{"recipes/deno.ts", "deno_install", `{user: 'app', version: '\uFDD0V\uFDD1', sha256: '\uFDD0S\uFDD1'}`},
		{"recipes/postgres.ts", "postgres_apt_repo", `{}`},
		{"recipes/postgres.ts", "alpine_postgres_setup", `{version: 16}`},
		{"recipes/certbot.ts", "debian_certbot_issue", `{domain: '\uFDD0D\uFDD1', extra_domains: ['www.example.org'], email: 'ops@example.org'}`},
		{"recipes/certbot.ts", "alpine_certbot_webroot", `{domain: 'example.org', email: 'ops@example.org', expected_addresses: ['203.0.113.9']}`},
		{"recipes/fuz_app.ts", "fuz_app_env_base", `{path: '/srv/app/.env', owner: 'app', database_url: '\uFDD0DB\uFDD1', secret_cookie_keys: '\uFDD0K\uFDD1', allowed_origins: 'https://example.org'}`},
		{"recipes/fuz_app.ts", "fuz_app_trusted_proxies", `{}`},
		{"recipes/fuz_app.ts", "fuz_app_bootstrap_token", `{user: 'app', path: '/srv/app/token'}`},
	} {
		a, b := load(t, c.file), load(t, c.file)
		first := a.json(t, c.fn, a.js(t, c.args))
		if again := a.json(t, c.fn, a.js(t, c.args)); again != first {
			t.Errorf("%s gave two outputs for the same arguments:\n%s\n%s", c.fn, first, again)
		}
		if other := b.json(t, c.fn, b.js(t, c.args)); other != first {
			t.Errorf("%s gave another output in a fresh runtime:\n%s\n%s", c.fn, first, other)
		}
	}
}

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
