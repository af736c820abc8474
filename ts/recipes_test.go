package ts_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRecipesPure: no recipe module reads the clock, randomness, the
// network or a file, and each recipe gives the same output for the same
// arguments, call after call.
func TestRecipesPure(t *testing.T) {
	files, err := filepath.Glob("recipes/*.ts")
	if err != nil || len(files) == 0 {
		t.Fatalf("no recipes: %v", err)
	}
	impure := regexp.MustCompile(`\bnew Date\b|\bDate\.|\bMath\.random\b|\b(fetch|setTimeout|setInterval|require|import)\(|\b(crypto|performance|process|Deno)\.`)
	for _, f := range append(files, "shell.ts", "env_ref.ts") {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			code, _, _ := strings.Cut(line, "//")
			if c := strings.TrimSpace(code); strings.HasPrefix(c, "*") || strings.HasPrefix(c, "/*") {
				continue
			}
			if m := impure.FindString(code); m != "" {
				t.Errorf("%s:%d uses %s: a recipe is pure", f, i+1, m)
			}
		}
	}
	for _, c := range []struct{ file, fn, args string }{
		{"recipes/nginx.ts", "debian_nginx_site", `{name: 'app', domain: 'example.com', root: '/var/www/app', port: 3000, redirect_domains: ['www.example.com', '\uFDD0WWW\uFDD1']}`},
		{"recipes/nginx.ts", "alpine_nginx_site", `{name: 'app', domain: '\uFDD0D\uFDD1', root: '/var/www/app', extra_domains: ['\uFDD0E\uFDD1'], tls: false}`},
		{"recipes/nginx.ts", "debian_nginx_catch_all", `{}`},
		{"recipes/nginx.ts", "alpine_nginx_rate_limit_zone", `{rate: '5r/s'}`},
		{"recipes/service.ts", "hardened_systemd_unit", `{name: 'app', user: 'app', command: '/usr/bin/app', env_file: '/etc/app/env', read_write_paths: ['/var/lib/app']}`},
		{"recipes/service.ts", "hardened_openrc_service", `{name: 'app', user: 'app', command: '/usr/bin/app', command_args: '--port 3000', env_file: '/etc/app/env'}`},
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

type template struct {
	Template string            `json:"template"`
	Vars     map[string]any    `json:"vars"`
	Kinds    map[string]string `json:"kinds"`
}

type filePayload struct {
	Path     string          `json:"path"`
	Mode     string          `json:"mode"`
	Validate string          `json:"validate"`
	Content  json.RawMessage `json:"content"`
}

func payload(t *testing.T, m *module, fn, args string) (filePayload, template) {
	t.Helper()
	var p filePayload
	if err := json.Unmarshal([]byte(m.json(t, fn, m.js(t, args))), &p); err != nil {
		t.Fatal(err)
	}
	var tpl template
	if err := json.Unmarshal(p.Content, &tpl); err != nil {
		t.Fatal(err)
	}
	return p, tpl
}

func TestNginxSite(t *testing.T) {
	m := load(t, "recipes/nginx.ts")
	p, tpl := payload(t, m, "debian_nginx_site", `{name: 'app', domain: 'example.com', root: '/var/www/app', port: '\uFDD0PORT\uFDD1', extra_domains: ['api.example.com'], redirect_domains: ['www.example.com', '\uFDD0OLD\uFDD1']}`)
	if p.Path != "/etc/nginx/sites-enabled/app" || p.Mode != "644" || p.Validate != m.constant(t, "NGINX_VALIDATE") {
		t.Errorf("payload = %+v", p)
	}
	wantVars := map[string]any{"domain": "example.com", "port": "\uFDD0PORT\uFDD1", "redirect_domain_1": "\uFDD0OLD\uFDD1"}
	wantKinds := map[string]string{"domain": "domain", "port": "port", "redirect_domain_1": "domain"}
	if got, _ := json.Marshal(tpl.Vars); string(got) != mustJSON(wantVars) {
		t.Errorf("vars = %s, want %s", got, mustJSON(wantVars))
	}
	if got, _ := json.Marshal(tpl.Kinds); string(got) != mustJSON(wantKinds) {
		t.Errorf("kinds = %s, want %s", got, mustJSON(wantKinds))
	}
	for _, want := range []string{
		"server_name {{domain}} api.example.com;",
		"server_name www.example.com {{redirect_domain_1}};",
		"return 301 https://{{domain}}$request_uri;",
		"listen 443 ssl http2;",
		"ssl_certificate /etc/letsencrypt/live/{{domain}}/fullchain.pem;",
		"root /var/www/acme;",
		"limit_req zone=zap_site burst=20 nodelay;",
		"proxy_pass http://127.0.0.1:{{port}};",
		`add_header Content-Security-Policy "default-src 'self'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'; object-src 'none'" always;`,
		`add_header Strict-Transport-Security "max-age=63072000; includeSubDomains" always;`,
		"add_header X-Content-Type-Options nosniff always;",
		"add_header X-Frame-Options DENY always;",
		"server_tokens off;",
	} {
		if !strings.Contains(tpl.Template, want) {
			t.Errorf("the site lacks %q:\n%s", want, tpl.Template)
		}
	}
	// Every placeholder has its variable and every variable its placeholder.
	for name := range tpl.Vars {
		if !strings.Contains(tpl.Template, "{{"+name+"}}") {
			t.Errorf("variable %s has no placeholder", name)
		}
	}
	for _, ph := range regexp.MustCompile(`\{\{(\w+)\}\}`).FindAllStringSubmatch(tpl.Template, -1) {
		if _, ok := tpl.Vars[ph[1]]; !ok {
			t.Errorf("placeholder %s has no variable", ph[1])
		}
	}
	if !strings.Contains(m.str(t, "rate_limit_zone"), "zone="+m.constant(t, "RATE_LIMIT_ZONE").(string)+":10m rate=10r/s;") {
		t.Errorf("rate_limit_zone doesn't define RATE_LIMIT_ZONE")
	}

	p, tpl = payload(t, m, "alpine_nginx_site", `{name: 'app', domain: 'example.com', root: '/srv/www', tls: false, rate_limit: false, ipv6: false}`)
	if p.Path != "/etc/nginx/http.d/app.conf" {
		t.Errorf("alpine path = %s", p.Path)
	}
	for _, bad := range []string{"443", "limit_req", "Strict-Transport", "[::]", "proxy_pass"} {
		if strings.Contains(tpl.Template, bad) {
			t.Errorf("a plain-HTTP site without rate limit, IPv6 or proxy holds %q:\n%s", bad, tpl.Template)
		}
	}

	for _, c := range []struct{ args, want string }{
		{`{name: 'a', root: '/r'}`, "domain is required"},
		{`{name: 'a', domain: 'bad;name', root: '/r'}`, `domain "bad;name" is not a DNS name`},
		{`{name: 'a', domain: 'x.org', root: '/r', redirect_domains: ['x.org}']}`, `redirect_domains[0] "x.org}" is not a DNS name`},
		{`{name: 'a', domain: 'x.org', root: '\uFDD0R\uFDD1'}`, "root takes no reference"},
		{`{name: 'a', domain: 'x.org', root: '/r', csp: "default-src 'self'; } server {"}`, "csp"},
		{`{name: 'a', domain: 'x.org', root: '/r', port: 70000}`, "not a port number"},
		{`{name: '../x', domain: 'x.org', root: '/r'}`, "not a plain file name"},
	} {
		m.refused(t, c.want, "debian_nginx_site", m.js(t, c.args))
	}
	m.refused(t, "http2 is 'listen' or 'directive'", "nginx_site_core", m.js(t, `{domain: 'x.org', root: '/r'}`))
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestRecipeIDs: the nginx and service recipes return whole file
// resources, as the others do: a default id, or the id option's, and
// depends_on and triggers passed through, copied.
func TestRecipeIDs(t *testing.T) {
	nginx := load(t, "recipes/nginx.ts")
	service := load(t, "recipes/service.ts")
	unit := `{name: 'app', user: 'app', command: '/usr/bin/app'}`
	site := `{name: 'app', domain: 'example.com', root: '/var/www/app'}`
	for _, c := range []struct {
		m        *module
		fn, args string
		want     string
	}{
		{nginx, "debian_nginx_site", site, `{"id":"nginx-site-app","path":"/etc/nginx/sites-enabled/app"}`},
		{nginx, "alpine_nginx_site", site, `{"id":"nginx-site-app","path":"/etc/nginx/http.d/app.conf"}`},
		{nginx, "debian_nginx_catch_all", `{}`, `{"id":"nginx-catch-all","path":"/etc/nginx/sites-available/default"}`},
		{nginx, "alpine_nginx_rate_limit_zone", `{}`, `{"id":"nginx-rate-limit-zone","path":"/etc/nginx/http.d/zap-rate-limit.conf"}`},
		{service, "hardened_systemd_unit", unit, `{"id":"app-unit","path":"/etc/systemd/system/app.service"}`},
		{service, "hardened_openrc_service", unit, `{"id":"app-initd","path":"/etc/init.d/app"}`},
		{nginx, "debian_nginx_site", `{name: 'app', domain: 'example.com', root: '/var/www/app', id: 'site', depends_on: ['pkg'], triggers: ['nginx']}`,
			`{"depends_on":["pkg"],"id":"site","path":"/etc/nginx/sites-enabled/app","triggers":["nginx"]}`},
		{nginx, "debian_nginx_rate_limit_zone", `{id: 'zone', depends_on: ['pkg']}`, `{"depends_on":["pkg"],"id":"zone","path":"/etc/nginx/conf.d/zap-rate-limit.conf"}`},
		{service, "hardened_openrc_service", `{name: 'app', user: 'app', command: '/usr/bin/app', id: 'initd', depends_on: ['app-user'], triggers: ['app']}`,
			`{"depends_on":["app-user"],"id":"initd","path":"/etc/init.d/app","triggers":["app"]}`},
	} {
		var got struct {
			DependsOn []string `json:"depends_on,omitempty"`
			ID        string   `json:"id"`
			Path      string   `json:"path"`
			Triggers  []string `json:"triggers,omitempty"`
		}
		if err := json.Unmarshal([]byte(c.m.json(t, c.fn, c.m.js(t, c.args))), &got); err != nil {
			t.Fatal(err)
		}
		if s := mustJSON(got); s != c.want {
			t.Errorf("%s(%s) = %s, want %s", c.fn, c.args, s, c.want)
		}
	}
}
