package deploy

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/lock"
	"github.com/zap-go/zap/internal/mask"
	"github.com/zap-go/zap/pkg/canon"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/deployplan"
	"github.com/zap-go/zap/pkg/observation"
)

// TestPreflightDigest: the preflight's digest moves with a declaration and
// with the pin zap.lock holds for a declared resource, and not with a pin
// of an id the config doesn't declare; --skip-preflight and an empty
// config say so instead.
func TestPreflightDigest(t *testing.T) {
	d, err := declaration.Read([]byte(`{"format":"zap.declaration/1","target":{"host":"h"},"resources":[
		{"id":"a","type":"directory","path":"/srv/a"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "zap.lock")
	write := func(entries ...lock.Entry) {
		t.Helper()
		if err := lock.Write(path, &lock.Lock{Format: lock.Format, Entries: entries}); err != nil {
			t.Fatal(err)
		}
	}
	digest := func(o Options) string {
		t.Helper()
		p, err := preflight(d, o)
		if err != nil {
			t.Fatal(err)
		}
		return p.State + " " + p.Digest
	}
	pin := func(id, b string) lock.Entry {
		return lock.Entry{ID: id, Kind: declaration.LockRemoteFile, Blake3: strings.Repeat(b, 64), ConfigHash: strings.Repeat("c", 64)}
	}
	none := digest(Options{})
	write(pin("other", "1"))
	if got := digest(Options{Lock: path}); got != none {
		t.Errorf("a pin of an undeclared id moved the digest")
	}
	write(pin("a", "1"))
	one := digest(Options{Lock: path})
	write(pin("a", "2"))
	if two := digest(Options{Lock: path}); one == none || two == one {
		t.Errorf("a declared resource's pin doesn't move the digest: %s, %s, %s", none, one, two)
	}
	if got := digest(Options{Flags: deployplan.Flags{SkipPreflight: true}}); got != "skipped " {
		t.Errorf("--skip-preflight: %q", got)
	}
	declaration.BodyOf[*declaration.Directory](&d.Resources[0]).Path = declaration.Lit("/srv/b")
	if digest(Options{}) == none {
		t.Error("an edited declaration leaves the digest as it was")
	}
}

// TestCheckURLs: the health and readiness URLs keep the domain's reference
// (the plan records its value, or that it is a secret, beside them); a
// health path of /ready is the one check.
func TestCheckURLs(t *testing.T) {
	d, err := declaration.Read([]byte(`{"format":"zap.declaration/1","target":{"host":"h"},"resources":[],
		"deploy":{"path":"/srv/app","artifacts":["bin"],"health":{"domain":{"$text":["app.",{"$env":"APP_DOMAIN"}]}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	p := &deployplan.Plan{Target: deployplan.Target{User: "app"}, Source: deployplan.Source{Version: "abcd"}, Live: deployplan.Live{State: deployplan.LiveNone}}
	s := steps(d, p)
	if s.Health == nil || s.Ready == nil {
		t.Fatalf("steps: health %v, ready %v", s.Health, s.Ready)
	}
	for _, c := range []struct {
		got  declaration.Text
		want string
	}{{s.Health.URL, "https://app.{env:APP_DOMAIN}/health"}, {s.Ready.URL, "https://app.{env:APP_DOMAIN}/ready"}} {
		if c.got.String() != c.want {
			t.Errorf("URL %s, want %s", c.got, c.want)
		}
	}
	d.Deploy.Health.Path = "/ready"
	if s := steps(d, p); s.Ready != nil || s.Health.URL.String() != "https://app.{env:APP_DOMAIN}/ready" {
		t.Errorf("health.path /ready: health %s, ready %v", s.Health.URL, s.Ready)
	}
}

// TestMaskPlan: an unbindable plan names a secret host and user only as
// [MASKED:NAME], in the target, the archive's name and the release script.
func TestMaskPlan(t *testing.T) {
	p := &deployplan.Plan{Target: deployplan.Target{Host: "secret-host.example", User: "secretuser"}, Path: "/srv/app"}
	p.Steps.Upload.Name = ".zap-deploy-secretuser-abcd.tar.gz"
	p.Steps.Script = "user='secretuser'\n"
	maskPlan(p, mask.New(map[string]string{"DEPLOY_HOST": "secret-host.example", "DEPLOY_USER": "secretuser"}))
	doc, err := canon.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(doc), "secretuser") || strings.Contains(string(doc), "secret-host") {
		t.Fatalf("a secret value is left in the plan:\n%s", doc)
	}
	if p.Target.Host != "[MASKED:DEPLOY_HOST]" || p.Steps.Upload.Name != ".zap-deploy-[MASKED:DEPLOY_USER]-abcd.tar.gz" {
		t.Errorf("masked: host %q, archive %q", p.Target.Host, p.Steps.Upload.Name)
	}
}

// TestRollbackLineSaysWhatTheRollbackDoes: the preview's last step names
// only what follows the swap: with neither a service nor a health check
// nothing can fail after it, so there is no rollback, and a restart or a
// health check alone is all the rollback repeats.
func TestRollbackLineSaysWhatTheRollbackDoes(t *testing.T) {
	check := &deployplan.Check{URL: declaration.Lit("https://app.example/health"), Attempts: 1, IntervalMS: 1}
	for _, c := range []struct {
		restart     string
		health      *deployplan.Check
		want, never string
	}{
		{"", nil, "no rollback: nothing runs after the swap (no service to restart, no health check), so the release is live once it is swapped in", "current back"},
		{"systemctl restart 'app'", nil, "on a failed restart: current back to /srv/app/releases/aaaaaaaaaaaa (under the deploy lock), then restart the service", "health"},
		{"", check, "on a failed health check: current back to /srv/app/releases/aaaaaaaaaaaa (under the deploy lock), then check health again", "restart"},
		{"systemctl restart 'app'", check, "on a failed restart or health check: current back to /srv/app/releases/aaaaaaaaaaaa (under the deploy lock), then restart the service and check health again", "readiness"},
	} {
		p := &deployplan.Plan{Path: "/srv/app", Source: deployplan.Source{Version: "bbbbbbbbbbbb"},
			Live: deployplan.Live{State: deployplan.LiveRelease, Release: "aaaaaaaaaaaa"}, Steps: deployplan.Steps{Restart: c.restart, Health: c.health}}
		got := rollbackLine(p)
		if got != c.want || strings.Contains(got, c.never) {
			t.Errorf("restart %q, health %v:\n got %s\nwant %s", c.restart, c.health != nil, got, c.want)
		}
	}
}

// TestTextWarnsOfAnUnsetDomain: a plan whose health domain's reference was
// unset shows a warning naming it, the URL with [UNSET:NAME], and no
// plan_hash; Bindable says no review binds it.
func TestTextWarnsOfAnUnsetDomain(t *testing.T) {
	url := declaration.Concat(declaration.Part{Lit: "https://"}, declaration.Part{Env: "APP_DOMAIN"}, declaration.Part{Lit: "/health"})
	p := &deployplan.Plan{Path: "/srv/app", Source: deployplan.Source{Version: "bbbbbbbbbbbb", Tree: deployplan.Clean},
		Live:       deployplan.Live{State: deployplan.LiveNone},
		References: []observation.Reference{{Name: "APP_DOMAIN"}},
		Steps:      deployplan.Steps{Health: &deployplan.Check{URL: url, Attempts: 1, IntervalMS: 1}}}
	if Bindable(p) {
		t.Error("a plan with an unset reference is bindable")
	}
	text := Text(&Made{Plan: p})
	for _, want := range []string{
		"warning: deploy.health.domain: the reference APP_DOMAIN is unset or empty",
		"health: GET https://[UNSET:APP_DOMAIN]/health",
		"no plan_hash: the reference APP_DOMAIN is unset or empty",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the text lacks %q:\n%s", want, text)
		}
	}
}

// TestHostileDomainValuesAreRefused: a health domain through a reference
// whose value holds anything a host name doesn't (#, ?, &, /, @, :, a
// space, a control character) is bad input when the plan is made, naming
// the field and the reference, a secret's value unshown; and zap-deploy
// run refuses a plan whose reference holds one (a plan made by hand),
// before any step.
func TestHostileDomainValuesAreRefused(t *testing.T) {
	d, err := declaration.Read([]byte(`{"format":"zap.declaration/1","target":{"host":"h"},"resources":[],"mask":["SECRET_DOMAIN"],
		"deploy":{"path":"/srv/app","artifacts":["bin"],"health":{"domain":{"$env":"APP_DOMAIN"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	hostile := []string{"evil.example#", "evil.example/x", "evil.example?q=1", "a&b.example", "user@evil.example",
		"evil.example /ready", "evil.example\n", "evil.example\\x", "[::1]"}
	for _, v := range hostile {
		env := func(string) (string, bool) { return v, true }
		err := checkDomain(d, env, v)
		var ie *InputError
		if !errors.As(err, &ie) || ie.Field != "deploy.health.domain" || !strings.Contains(err.Error(), "APP_DOMAIN") {
			t.Errorf("%q: %v", v, err)
		}
		url := declaration.Concat(declaration.Part{Lit: "https://"}, declaration.Part{Env: "APP_DOMAIN"}, declaration.Part{Lit: "/health"})
		p := &deployplan.Plan{References: []observation.Reference{{Name: "APP_DOMAIN", Value: v}},
			Steps: deployplan.Steps{Health: &deployplan.Check{URL: url, Attempts: 1, IntervalMS: 1}}}
		if _, err := ResolveChecks(p, env); err == nil || !strings.Contains(err.Error(), "steps.health.url: the reference APP_DOMAIN holds a character no host name has") {
			t.Errorf("run, %q: %v", v, err)
		}
	}
	// A port is no host character, but a domain may carry one: a value
	// with a port that isn't one is refused at the plan and at the run.
	for _, v := range []string{"evil.example:", "evil.example:0", "evil.example:08443", "evil.example:65536", "evil.example:84a", "evil.example:1:2", ":8443"} {
		env := func(string) (string, bool) { return v, true }
		if err := checkDomain(d, env, v); err == nil {
			t.Errorf("%q: no error", v)
		}
		url := declaration.Concat(declaration.Part{Lit: "https://"}, declaration.Part{Env: "APP_DOMAIN"}, declaration.Part{Lit: "/health"})
		p := &deployplan.Plan{References: []observation.Reference{{Name: "APP_DOMAIN", Value: v}},
			Steps: deployplan.Steps{Health: &deployplan.Check{URL: url, Attempts: 1, IntervalMS: 1}}}
		if _, err := ResolveChecks(p, env); err == nil || !strings.Contains(err.Error(), "steps.health.url: the domain APP_DOMAIN resolves to is not a host name") {
			t.Errorf("run, %q: %v", v, err)
		}
	}
	for _, v := range []string{"app.example.net", "127.0.0.1", "", "app.example.net:8443", "127.0.0.1:1", "a:65535"} {
		if err := checkDomain(d, func(string) (string, bool) { return v, true }, v); err != nil {
			t.Errorf("%q: %v", v, err)
		}
	}
	d.Mask = []string{"APP_DOMAIN"}
	err = checkDomain(d, func(string) (string, bool) { return "hidden-canary.example/x", true }, "hidden-canary.example/x")
	if err == nil || strings.Contains(err.Error(), "hidden-canary") {
		t.Errorf("a secret domain: %v", err)
	}
}

// TestHealthFailureMentionsRedirectsOnlyForA3xx: a 404 or a 503 is said
// as the status it was; only a 3xx says a redirect is not followed.
func TestHealthFailureMentionsRedirectsOnlyForA3xx(t *testing.T) {
	for status, redirect := range map[int]bool{404: false, 503: false, 301: true, 302: true} {
		err := Outcome{Status: status, Attempts: 2, URL: "https://app.example/health"}.Err()
		if err == nil || strings.Contains(err.Error(), "redirect") != redirect {
			t.Errorf("%d: %v", status, err)
		}
	}
}

// TestPreviewShowsWhatTheConfigOwns: a preview shows the release script's
// settings and prepare commands and names Zap's constant body, and the
// install, rollback and gate scripts, by digest; with Scripts it prints
// them whole. The plan_hash still covers every byte that runs: a changed
// byte of the body or of a hashed script changes it, and a body that isn't
// this zap's is shown whole.
func TestPreviewShowsWhatTheConfigOwns(t *testing.T) {
	live := deployplan.Live{State: deployplan.LiveRelease, Release: "aaaaaaaaaaaa"}
	script := ReleaseScript("/srv/app", "deployer", "bbbbbbbbbbbb", live, 5, []string{".env"}, []string{"npm ci --omit=dev"}, "me@laptop")
	p := &deployplan.Plan{Path: "/srv/app", Target: deployplan.Target{Declared: "app", Host: "app", User: "deployer"},
		Source: deployplan.Source{Commit: strings.Repeat("b", 40), Version: "bbbbbbbbbbbb", Tree: deployplan.Clean},
		Live:   live, Preflight: deployplan.Preflight{State: deployplan.PreflightNone},
		Steps: deployplan.Steps{Artifacts: []string{"dist"}, Upload: deployplan.Upload{Name: ".zap-deploy-deployer-bbbbbbbbbbbb.tar.gz"}, Script: script}}
	hash, err := deployplan.Hash(p, Hashed()...)
	if err != nil {
		t.Fatal(err)
	}
	p.Hash = hash
	short := Text(&Made{Plan: p})
	for _, want := range []string{
		"path='/srv/app'", "shared='.env'", "sh -ec 'npm ci --omit=dev' || return",
		"zap's release script body, " + ScriptDigest(releaseBody),
		"install:  " + ScriptDigest(Install), "rollback: " + ScriptDigest(Rollback), "gate:     " + ScriptDigest(Gate),
		"plan_hash: " + hash,
	} {
		if !strings.Contains(short, want) {
			t.Errorf("the preview lacks %q:\n%s", want, short)
		}
	}
	if strings.Contains(short, "flock -n 9") || strings.Contains(short, "zap_stdin zap_install") {
		t.Errorf("the preview prints a constant script whole:\n%s", short)
	}
	if n := strings.Count(short, "\n"); n > 40 {
		t.Errorf("the preview is %d lines:\n%s", n, short)
	}
	full := Text(&Made{Plan: p, Scripts: true})
	for _, want := range []string{"flock -n 9 || zap_stop", "zap_stdin zap_install", "exec 9<.zap-deploy.lock || skip", "flock -w 30 9", "sh -ec 'npm ci --omit=dev' || return"} {
		if !strings.Contains(full, want) {
			t.Errorf("with Scripts the preview lacks %q", want)
		}
	}

	// A byte changed in the body: another hash, and the script shown whole.
	edited := *p
	edited.Steps.Script = strings.Replace(script, "flock -n 9", "flock -n 8", 1)
	if h, _ := deployplan.Hash(&edited, Hashed()...); h == hash {
		t.Error("a changed byte of the release script's body leaves the plan_hash unchanged")
	}
	if text := Text(&Made{Plan: &edited}); !strings.Contains(text, "not this zap's release script, so shown whole") || !strings.Contains(text, "flock -n 8") {
		t.Errorf("a body that isn't this zap's isn't shown whole:\n%s", text)
	}
	for i := range Hashed() {
		scripts := Hashed()
		scripts[i] += "#"
		if h, _ := deployplan.Hash(p, scripts...); h == hash {
			t.Errorf("a changed byte of hashed script %d leaves the plan_hash unchanged", i)
		}
	}
}
