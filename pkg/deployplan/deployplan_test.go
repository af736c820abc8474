package deployplan

import (
	"bytes"
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

func sample() *Plan {
	return &Plan{
		Format:    Format,
		Target:    Target{Declared: "zaplab", Host: "zaplab", User: "app"},
		Operator:  "me@laptop",
		Source:    Source{Commit: strings.Repeat("ab", 20), Version: "abababababab", Tree: Clean},
		Live:      Live{State: LiveRelease, Release: "0123456789ab"},
		Preflight: Preflight{State: PreflightChecks, Count: 3, Digest: strings.Repeat("c", 64)},
		Path:      "/srv/app",
		Steps: Steps{
			Build:     "go build -o bin/app .",
			Artifacts: []string{"bin"},
			Upload:    Upload{Name: ".zap-deploy-app-abababababab.tar.gz"},
			Script:    "set -eu\n",
			Restart:   "systemctl daemon-reload && systemctl restart app",
			Health:    &Check{URL: declaration.Lit("https://app.example/health"), Attempts: 10, IntervalMS: 1000},
		},
	}
}

func TestRoundTripAndHash(t *testing.T) {
	p := sample()
	h, err := Hash(p, "install", "rollback")
	if err != nil {
		t.Fatal(err)
	}
	p.Hash = h
	doc, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	q, err := Read(doc)
	if err != nil {
		t.Fatalf("Read refuses what Encode wrote: %v\n%s", err, doc)
	}
	if err := Verify(q, "install", "rollback"); err != nil {
		t.Fatal(err)
	}
	if err := Verify(q, "install", "rollback2"); err == nil {
		t.Fatal("a changed unprinted script still verifies")
	}
	// Every field the plan carries moves the hash.
	for name, edit := range map[string]func(p *Plan){
		"host":      func(p *Plan) { p.Target.Host = "other" },
		"user":      func(p *Plan) { p.Target.User = "root" },
		"operator":  func(p *Plan) { p.Operator = "you@laptop" },
		"previous":  func(p *Plan) { p.Live.Release = "0123456789ac" },
		"force":     func(p *Plan) { p.Flags.Force = true },
		"preflight": func(p *Plan) { p.Preflight = Preflight{State: PreflightSkipped} },
		"script":    func(p *Plan) { p.Steps.Script += "true\n" },
		"health":    func(p *Plan) { p.Steps.Health.Attempts++ },
	} {
		c := *q
		st := c.Steps
		hc := *st.Health
		st.Health = &hc
		c.Steps = st
		edit(&c)
		if got, _ := Hash(&c, "install", "rollback"); got == h {
			t.Errorf("%s: changing it leaves the hash as it was", name)
		}
	}
}

func TestReadRefuses(t *testing.T) {
	p := sample()
	doc, _ := p.Encode()
	for name, tc := range map[string]struct{ from, to, want string }{
		"unknown field": {`"operator"`, `"operatr"`, "operatr"},
		"bad version":   {`"version":"abababababab"`, `"version":"xyz"`, "source.version"},
		"dirty no id":   {`"tree":"clean"`, `"tree":"dirty"`, "source.dirty_id"},
		"live state":    {`"state":"release"`, `"state":"gone"`, "live.state"},
		"format":        {Format, "zap.plan/1", "format"},
	} {
		in := strings.Replace(string(doc), tc.from, tc.to, 1)
		if in == string(doc) {
			t.Fatalf("%s: %q not in %s", name, tc.from, doc)
		}
		if _, err := Read([]byte(in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Read = %v, want an error naming %s", name, err, tc.want)
		}
	}
}

// domainURL is https://{env:APP_DOMAIN}<path>.
func domainURL(path string) declaration.Text {
	return declaration.Concat(declaration.Part{Lit: "https://"}, declaration.Part{Env: "APP_DOMAIN"}, declaration.Part{Lit: path})
}

// TestCheckReferences: a check's URL keeps the health domain's reference
// in the document; a plain one's recorded value shows and moves the hash,
// a secret's shows as [MASKED:NAME] and is in no document; a run resolves
// the URL only to the value recorded.
func TestCheckReferences(t *testing.T) {
	p := sample()
	p.Steps.Health.URL = domainURL("/health")
	p.References = []observation.Reference{{Name: "APP_DOMAIN", Value: "app.example"}}
	doc, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if want := `"url":{"$text":["https://",{"$env":"APP_DOMAIN"},"/health"]}`; !strings.Contains(string(doc), want) {
		t.Fatalf("the document doesn't hold %s:\n%s", want, doc)
	}
	if _, err := Read(doc); err != nil {
		t.Fatalf("Read refuses what Encode wrote: %v", err)
	}
	if got := p.Shown(p.Steps.Health.URL); got != "https://app.example/health" {
		t.Errorf("Shown = %q", got)
	}
	h1, _ := Hash(p, "s")
	q := *p
	q.References = []observation.Reference{{Name: "APP_DOMAIN", Value: "other.example"}}
	if h2, _ := Hash(&q, "s"); h1 == h2 {
		t.Error("the recorded domain doesn't move the hash")
	}
	env := func(vals map[string]string) func(string) (string, bool) {
		return func(n string) (string, bool) { v, ok := vals[n]; return v, ok }
	}
	if got, err := p.Resolve(p.Steps.Health.URL, env(map[string]string{"APP_DOMAIN": "app.example"})); err != nil || got != "https://app.example/health" {
		t.Errorf("Resolve = %q, %v", got, err)
	}
	for name, vals := range map[string]map[string]string{"moved": {"APP_DOMAIN": "evil.example"}, "unset": {}, "empty": {"APP_DOMAIN": ""}} {
		_, err := p.Resolve(p.Steps.Health.URL, env(vals))
		if err == nil || !strings.Contains(err.Error(), "APP_DOMAIN") || strings.Contains(err.Error(), "evil") {
			t.Errorf("%s: Resolve = %v, want an error naming APP_DOMAIN and no value", name, err)
		}
	}

	// A secret domain: the document holds the reference alone.
	p.References = []observation.Reference{{Name: "APP_DOMAIN", Secret: true}}
	doc, _ = p.Encode()
	if strings.Contains(string(doc), "app.example") {
		t.Errorf("a secret domain's value is in the document:\n%s", doc)
	}
	if got := p.Shown(p.Steps.Health.URL); got != "https://[MASKED:APP_DOMAIN]/health" {
		t.Errorf("Shown = %q", got)
	}
	if _, err := p.Resolve(p.Steps.Health.URL, env(map[string]string{"APP_DOMAIN": "app.example"})); err == nil || !strings.Contains(err.Error(), "secret") {
		t.Errorf("Resolve of a secret = %v", err)
	}

	// Read refuses a URL whose reference the plan doesn't record, and one
	// that isn't https.
	p.References = nil
	doc, _ = p.Encode()
	if _, err := Read(doc); err == nil || !strings.Contains(err.Error(), "steps.health.url: references APP_DOMAIN") {
		t.Errorf("Read of an unrecorded reference = %v", err)
	}
	p.Steps.Health.URL = declaration.Lit("http://app.example/health")
	doc, _ = p.Encode()
	if _, err := Read(doc); err == nil || !strings.Contains(err.Error(), "steps.health.url: doesn't start with https://") {
		t.Errorf("Read of an http URL = %v", err)
	}
}

func TestIsRelease(t *testing.T) {
	for name, want := range map[string]bool{
		"abcd": true, "abc": false, "0123456789ab": true, "0123456789ab-dirty-0badc0de": true,
		"0123456789ab-dirty-0BADC0DE": false, ".zap-stage": false, "current": false,
		strings.Repeat("a", 64): true, strings.Repeat("a", 65): false,
	} {
		if IsRelease(name) != want {
			t.Errorf("IsRelease(%q) = %v", name, !want)
		}
	}
}

// FuzzPlanRoundTrip checks that what Read accepts encodes to bytes Read
// accepts again, that encode to the same bytes, and hash the same.
func FuzzPlanRoundTrip(f *testing.F) {
	p := sample()
	doc, _ := p.Encode()
	f.Add(doc)
	p.Source = Source{Commit: "x", Version: "abcd-dirty-01234567", Tree: Dirty, DirtyID: "01234567"}
	p.Live = Live{State: LiveNone}
	p.Steps.Ready = &Check{URL: declaration.Lit("https://a/ready"), Attempts: 1, IntervalMS: 1}
	doc, _ = p.Encode()
	f.Add(doc)
	p.Steps.Ready.URL = domainURL("/ready")
	p.References = []observation.Reference{{Name: "APP_DOMAIN", Value: "a"}}
	doc, _ = p.Encode()
	f.Add(doc)
	f.Fuzz(func(t *testing.T, in []byte) {
		p, err := Read(in)
		if err != nil {
			return
		}
		out, err := p.Encode()
		if err != nil {
			t.Fatalf("Encode of what Read accepted: %v", err)
		}
		p2, err := Read(out)
		if err != nil {
			t.Fatalf("Read refuses what Encode wrote: %v\n  input %q\nencoded %q", err, in, out)
		}
		out2, _ := p2.Encode()
		if !bytes.Equal(out, out2) {
			t.Fatalf("encoding is not stable:\n once %q\ntwice %q", out, out2)
		}
		h1, _ := Hash(p, "s")
		h2, _ := Hash(p2, "s")
		if h1 != h2 {
			t.Fatalf("a plan and its re-read hash differently")
		}
	})
}
