package deployplan

import (
	"bytes"
	"strings"
	"testing"
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
			Health:    &Check{URL: "https://app.example/health", Attempts: 10, IntervalMS: 1000},
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
	p.Steps.Ready = &Check{URL: "https://a/ready", Attempts: 1, IntervalMS: 1}
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
