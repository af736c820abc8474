package cliout

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/deployplan"
	"github.com/zap-go/zap/pkg/observation"
)

// deployPlan is a deploy plan as zap-deploy plan writes one: a health URL
// through a plain reference, a live release to roll back to, and a
// plan_hash (64 hex; zap-deploy run, not this reader, verifies it). edit
// changes it before it is encoded.
func deployPlan(t testing.TB, edit func(*deployplan.Plan)) (json.RawMessage, *deployplan.Plan) {
	t.Helper()
	p := &deployplan.Plan{
		Format:    deployplan.Format,
		Target:    deployplan.Target{Declared: "{env:DEPLOY_HOST}", Host: "web1", User: "app"},
		Operator:  "me@laptop",
		Source:    deployplan.Source{Commit: strings.Repeat("ab", 20), Version: "abababababab", Tree: deployplan.Clean},
		Live:      deployplan.Live{State: deployplan.LiveRelease, Release: "0123456789ab"},
		Preflight: deployplan.Preflight{State: deployplan.PreflightChecks, Count: 1, Digest: strings.Repeat("c", 64)},
		Path:      "/srv/app",
		Steps: deployplan.Steps{
			Artifacts: []string{"bin"},
			Upload:    deployplan.Upload{Name: ".zap-deploy-app-abababababab.tar.gz"},
			Script:    "set -eu\n",
			Health: &deployplan.Check{URL: declaration.Concat(declaration.Part{Lit: "https://"}, declaration.Part{Env: "APP_DOMAIN"}, declaration.Part{Lit: "/health"}),
				Attempts: 3, IntervalMS: 100},
		},
		References: []observation.Reference{{Name: "APP_DOMAIN", Value: "app.example"}},
		Hash:       strings.Repeat("d", 64),
	}
	if edit != nil {
		edit(p)
	}
	b, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return b, p
}

func readDeploy(b []byte) (*Deploy, error) { d, _, err := ReadDeploy(b); return d, err }

// deployDoc is the document a dry zap deploy --json writes of the plan.
func deployDoc(raw json.RawMessage, p *deployplan.Plan) *Deploy {
	return &Deploy{Format: DeployFormat, Plan: raw, PlanHash: p.Hash, Version: p.Source.Version, Target: p.Target.Host, Live: p.Live.Release}
}

// TestDeployEveryField: a dry deploy's document with each field set, one
// already live, and a failure, each read back to the same bytes; the
// plan read with it is the one embedded.
func TestDeployEveryField(t *testing.T) {
	raw, p := deployPlan(t, nil)
	d := deployDoc(raw, p)
	d.Lock, d.Unbindable, d.Unrecorded = fullLock, []string{"DEPLOY_BOOTSTRAP_USER"}, true
	roundTrip(t, d, readDeploy)
	_, got, err := ReadDeploy(mustEncode(t, d))
	if err != nil || got.Hash != p.Hash || got.Steps.Health.URL.Refs()[0] != "APP_DOMAIN" {
		t.Fatalf("the plan read: %+v, %v", got, err)
	}

	raw, p = deployPlan(t, func(p *deployplan.Plan) { p.Live.Release, p.Hash = p.Source.Version, "" })
	d = deployDoc(raw, p)
	d.AlreadyLive, d.Lock = true, &Lock{}
	roundTrip(t, d, readDeploy)

	raw, p = deployPlan(t, func(p *deployplan.Plan) {
		p.Live, p.Preflight = deployplan.Live{State: deployplan.LiveNone}, deployplan.Preflight{State: deployplan.PreflightSkipped}
	})
	roundTrip(t, deployDoc(raw, p), readDeploy)

	roundTrip(t, &Deploy{Format: DeployFormat, Exit: 1, Error: "the deploy runs inside the app's git checkout: not a git repository", Hints: []string{"cd into it"}}, readDeploy)
}

// TestReadDeployRefuses: what a dry deploy's document can't say is
// refused, naming the field.
func TestReadDeployRefuses(t *testing.T) {
	raw, p := deployPlan(t, nil)
	live, lp := deployPlan(t, func(p *deployplan.Plan) { p.Live.Release, p.Hash = p.Source.Version, "" })
	enc := func(d *Deploy) string { return string(mustEncode(t, d)) }
	with := func(edit func(*Deploy)) string { d := deployDoc(raw, p); edit(d); return enc(d) }
	tests := []struct{ name, in, want string }{
		{"unknown field", strings.Replace(enc(deployDoc(raw, p)), `"exit":0,`, `"exit":0,"host":"web1",`, 1), "host: unknown field"},
		{"another format", strings.Replace(enc(deployDoc(raw, p)), DeployFormat, "zap.cli-deploy/2", 1), `format: this reader reads "zap.cli-deploy/1", not "zap.cli-deploy/2"`},
		{"a plan that doesn't read", strings.Replace(enc(deployDoc(raw, p)), `"tree":"clean"`, `"tree":"clean","age":1`, 1), "plan: source.age: unknown field"},
		{"a plan that doesn't check", strings.Replace(enc(deployDoc(raw, p)), `"state":"release"`, `"state":"gone"`, 1), `plan: live.state: "gone" is not one of none, release, unproven, missing, unreadable`},
		{"another plan_hash", with(func(d *Deploy) { d.PlanHash = strings.Repeat("0", 64) }), `plan_hash: "` + strings.Repeat("0", 64) + `" is not the plan's "` + p.Hash + `"`},
		{"no plan_hash for a plan with one", with(func(d *Deploy) { d.PlanHash = "" }), `plan_hash: "" is not the plan's "` + p.Hash + `"`},
		{"another version", with(func(d *Deploy) { d.Version = "0123456789ab" }), `version: "0123456789ab" is not the plan's source.version "abababababab"`},
		{"another target", with(func(d *Deploy) { d.Target = "web2" }), `target: "web2" is not the plan's target.host "web1"`},
		{"no live release", with(func(d *Deploy) { d.Live = "" }), `live: "" is not the plan's live.release "0123456789ab"`},
		{"already live when it isn't", with(func(d *Deploy) { d.AlreadyLive = true }), "already_live: true, but the plan says false"},
		{"not already live when it is", enc(deployDoc(live, lp)), "already_live: false, but the plan says true"},
		{"an exit but 0 with a plan", with(func(d *Deploy) { d.Exit = 2 }), "exit: a dry deploy that wrote its plan exits 0, not 2"},
		{"unrecorded without a plan_hash", enc(&Deploy{Format: DeployFormat, Plan: live, Version: lp.Source.Version, Target: "web1", Live: lp.Live.Release, AlreadyLive: true, Unrecorded: true}),
			"unrecorded: a plan with no plan_hash is never recorded"},
		{"a bad lock", with(func(d *Deploy) { d.Lock = &Lock{Pins: []Pin{{ID: "a", Kind: "k", Standing: "fresh"}}} }), "lock.pins[0] (a): an id, a kind and a known standing are required"},
		{"an error beside a result", with(func(d *Deploy) { d.Error = "x"; d.Exit = 2 }), "error: a run with a result has no error"},
		{"a failure without an error", `{"format":"zap.cli-deploy/1","exit":2}`, "error: required field missing (a run with no result)"},
		{"a failure exiting 0", `{"format":"zap.cli-deploy/1","error":"x","exit":0}`, "exit: a failed run doesn't exit 0"},
		{"a failure with a result field", `{"format":"zap.cli-deploy/1","error":"x","exit":1,"version":"abababababab"}`, "error: a failed run writes no result field"},
		{"null", `{"format":"zap.cli-deploy/1","error":"x","exit":1,"hints":null}`, "hints: null is not a value here; leave the field out instead"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := ReadDeploy([]byte(tt.in))
			if err == nil {
				t.Fatalf("read %s: no error, want %q", tt.in, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("got  %q\nwant %q", err, tt.want)
			}
		})
	}
}

// FuzzReadDeploy: a document ReadDeploy accepts encodes to one it accepts
// again, byte for byte the same on the next round, and never panics on any
// input.
func FuzzReadDeploy(f *testing.F) {
	raw, p := deployPlan(f, nil)
	d := deployDoc(raw, p)
	d.Lock = fullLock
	b, _ := Encode(d)
	f.Add(b)
	b, _ = Encode(&Deploy{Format: DeployFormat, Exit: 2, Error: "no deploy block", Hints: []string{"h"}})
	f.Add(b)
	f.Add([]byte(`{"format":"zap.cli-deploy/1","exit":1,"error":"x","plan":{}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		d, _, err := ReadDeploy(in)
		if err != nil {
			return
		}
		b, err := Encode(d)
		if err != nil {
			t.Fatalf("Encode of what ReadDeploy accepted: %v", err)
		}
		d2, _, err := ReadDeploy(b)
		if err != nil {
			t.Fatalf("ReadDeploy refuses what Encode wrote: %v\n input %q\n   out %s", err, in, b)
		}
		b2, _ := Encode(d2)
		if string(b) != string(b2) {
			t.Fatalf("Encode is not stable: %s, then %s", b, b2)
		}
	})
}
