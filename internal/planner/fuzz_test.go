package planner

import (
	"bytes"
	"testing"

	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// seedPlans returns canonical plan documents: what the planner makes of a
// few passes (every kind, an update with drift, holds spreading, a header
// with references and unresolved names), and a hand-made one with the step
// shapes the planner doesn't make yet (a note, a root command with a
// timeout).
func seedPlans(t testing.TB) [][]byte {
	var seeds [][]byte
	add := func(p *plan.Plan) {
		h, err := plan.Hash(p, ops.Script)
		if err != nil {
			t.Fatal(err)
		}
		p.Hash = h
		b, err := p.Encode()
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	planOf := func(o *observation.Observations) *plan.Plan {
		p, err := Plan(o)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}

	o := hashBase()
	o.References = append(o.References, observation.Reference{Name: "TOKEN", Secret: true})
	o.Unresolved = []string{"EMPTY"}
	add(planOf(o))

	f := fileRes("conf", "~/conf", "tab\there \u2028 \x1b[31m <script> & \"quoted\"\n")
	declaration.BodyOf[*declaration.File](&f).Mode, declaration.BodyOf[*declaration.File](&f).Owner, declaration.BodyOf[*declaration.File](&f).Group = "0640", "root", "adm"
	v := declaration.Concat(declaration.Part{Lit: "visudo -cf "}, declaration.Part{Env: "F"}, declaration.Part{Lit: " # é"})
	declaration.BodyOf[*declaration.File](&f).Validate = &v
	s := scriptRes("s", "true", "echo $HOME", "conf")
	declaration.BodyOf[*declaration.Script](&s).Env = map[string]declaration.Text{"A": declaration.Ref("X"), "B": declaration.Lit("")}
	add(planOf(observe(
		drifted(f, observation.Difference{Field: "content", Observed: "sha512 00", Desired: "sha512 ff"}),
		absent(s),
		undetermined(dirRes("u", "/u"), "timed out after 10s"),
		converged(dirRes("k", "/k", "u")),
		absent(linkRes("l", declaration.Lit("/l"), "/t", "k")),
	)))

	add(planOf(observe()))

	// Services and triggers: a marker before the source, the trigger and
	// the clear, a held source's triggers, a warning.
	trig := on("systemd", []observation.Marker{{Service: "nginx", Action: "restart"}},
		converged(svcRes("web", "nginx", yes(), []string{"unit"}, []string{"site"})),
		drifted(fileRes("site", "/site", "x")),
		undetermined(svcRes("api", "api", yes(), nil, nil), "systemctl is-active api exited 1"),
		absent(triggering("conf", "/conf", "api")),
	)
	trig.Resources[1].Drift = []observation.Difference{{Field: "content", Observed: "differs", Desired: "inline (1 bytes)"}}
	trig.Declaration.Resources = append(trig.Declaration.Resources, fileRes("unit", "/unit", "x"))
	trig.Resources = append(trig.Resources, observation.Resource{ID: "unit", Verdict: observation.Converged})
	trig.Warnings = []string{"a marker for a service this config doesn't manage"}
	add(planOf(trig))

	// Packages: Zap's own change, the index refresh (type zap, no
	// resource), in front of each install batch.
	pkgs := observe(absent(pkgRes("rg", "ripgrep")), absent(scriptRes("repo", "false", "add", "rg")), absent(pkgRes("app", "app", "repo")))
	pkgs.Declaration.Target.PackageManager = "apt"
	add(planOf(pkgs))

	note := &plan.Plan{
		Format:  plan.Format,
		Target:  declaration.Target{Local: true},
		Context: observation.Context{Target: "local", User: "root", Home: "/root"},
		Changes: []plan.Change{{
			ID: "s", Type: declaration.KindScript, Action: plan.Update,
			Resource: scriptRes("s", "true", "run"),
			Steps: []plan.Step{
				{Type: plan.StepNote, Note: "checked by Zap"},
				{Type: plan.StepCommand, Command: &plan.Command{Run: declaration.Lit("run"), Privilege: plan.Root, Timeout: 30}},
			},
		}},
		Held: []plan.Hold{{ID: "x", Type: declaration.KindLink, WaitsOn: []string{"y", "z"}}},
	}
	add(note)
	return seeds
}

// TestSeedPlansCanonical checks that each canonical seed decodes and encodes
// back to exactly its own bytes.
func TestSeedPlansCanonical(t *testing.T) {
	for i, seed := range seedPlans(t) {
		p, err := plan.Read(seed)
		if err != nil {
			t.Fatalf("seed %d doesn't read: %v\n%s", i, err, seed)
		}
		out, err := p.Encode()
		if err != nil {
			t.Fatalf("seed %d doesn't encode: %v", i, err)
		}
		if !bytes.Equal(out, seed) {
			t.Errorf("seed %d changed on a round trip:\n%s\n%s", i, seed, out)
		}
		if err := plan.Verify(p, ops.Script); err != nil {
			t.Errorf("seed %d: %v", i, err)
		}
	}
}

// FuzzPlanRoundTrip decodes a plan document and encodes it again: whatever
// plan.Read accepts encodes to a document that reads back and encodes to
// the same bytes (encode(decode(x)) is a fixed point), and a canonical seed
// encodes to exactly its own bytes.
func FuzzPlanRoundTrip(f *testing.F) {
	seeds := seedPlans(f)
	canonical := map[string]bool{}
	for _, s := range seeds {
		f.Add(s)
		canonical[string(s)] = true
		// The same plan spelled another way: indented, keys reordered.
		f.Add(append([]byte(" "), bytes.ReplaceAll(s, []byte(`,"`), []byte(",\n \""))...))
	}
	f.Add([]byte(`{"format":"zap.plan/1","target":{"local":true},"context":{"user":"u","target":"local"},"changes":[],"plan_hash":"","references":[{"name":"A","secret":false,"value":"\u00e9\ud83d\ude00"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := plan.Read(data)
		if err != nil {
			return
		}
		once, err := p.Encode()
		if err != nil {
			t.Fatalf("a plan Read accepted doesn't encode: %v\n%q", err, data)
		}
		q, err := plan.Read(once)
		if err != nil {
			t.Fatalf("the encoded plan doesn't read back: %v\n%q\n%s", err, data, once)
		}
		twice, err := q.Encode()
		if err != nil {
			t.Fatalf("the re-read plan doesn't encode: %v", err)
		}
		if !bytes.Equal(once, twice) {
			t.Fatalf("encode(decode(x)) is not a fixed point:\n%s\n%s", once, twice)
		}
		if canonical[string(data)] && !bytes.Equal(once, data) {
			t.Fatalf("a canonical seed changed on a round trip:\n%s\n%s", data, once)
		}
	})
}
