package deploy

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/lock"
	"github.com/zap-go/zap/internal/mask"
	"github.com/zap-go/zap/pkg/canon"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/deployplan"
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
	d.Resources[0].Directory.Path = declaration.Lit("/srv/b")
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
