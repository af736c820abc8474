package plan

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/canon"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// hashFixtureChanges are the changes the hash's tests build their plans
// from: a file's update with content (whose bytes may need escaping) and
// Zap's own refresh.
func hashFixtureChanges(content string) (file, refresh Change) {
	file = Change{ID: "f", Type: declaration.KindFile, Action: Update,
		Resource: declaration.Resource{Common: declaration.Common{ID: "f", Type: declaration.KindFile},
			Body: &declaration.File{Path: declaration.Lit("/f"), Content: declaration.Content{Type: declaration.ContentInline, Inline: &content}}},
		Drift:       []observation.Difference{{Field: "content"}},
		Fingerprint: strings.Repeat("a", 64),
		Steps:       []Step{{Type: StepOp, Op: &Op{Name: OpPut, Path: declaration.Lit("/f"), Content: &content, Privilege: Login}}, {Type: StepNote, Note: "a note"}},
	}
	refresh = Change{ID: "cache-update-apt", Type: KindZap, Action: Create, Steps: []Step{{Type: StepOp, Op: &Op{Name: "pkg-update-apt", Privilege: Root}}}}
	return file, refresh
}

// hashSeedPlans are plans as zap-plan writes them: none changed, a file's
// update with content that needs escaping, Zap's own refresh, and every
// optional block set.
func hashSeedPlans() []*Plan {
	file, refresh := hashFixtureChanges("<a href=\"x\">&</a>\u2028\n")
	return []*Plan{
		{Format: Format, Target: declaration.Target{Local: true}, Context: observation.Context{Target: "local", User: "u"}, Changes: []Change{}},
		{Format: Format, Target: declaration.Target{Local: true}, Context: observation.Context{Target: "local", User: "u"}, Changes: []Change{file}},
		{Format: Format, Target: declaration.Target{Local: true}, Context: observation.Context{Target: "local", User: "u", Home: "/home/u"},
			References: []observation.Reference{{Name: "A", Value: "<b>"}}, Unresolved: []string{"B"},
			Changes: []Change{refresh, file}, Held: []Hold{{ID: "h", Type: declaration.KindFile, Reason: "why"}}, Warnings: []string{"w"}, Hash: strings.Repeat("f", 64)},
	}
}

// scriptOf answers every operation with a script made from its name.
func scriptOf(name OpName) (Script, bool) {
	return Script{Text: "echo " + string(name) + "\n", Invocation: "sh -s --"}, true
}

// FuzzPlanHashCoversTheWholeDocument reads any plan document and checks
// what plan_hash is made of: hashDoc's bytes, spliced a change at a time,
// are the record of canon.Marshal's encoding of the whole plan with an
// empty plan_hash; Hash gives the same answer twice and ignores the
// plan_hash field it is written into; and it moves when a warning, a
// change's id or an operation's script text does.
func FuzzPlanHashCoversTheWholeDocument(f *testing.F) {
	for _, p := range hashSeedPlans() {
		b, err := p.Encode()
		if err != nil {
			f.Fatal(err)
		}
		if _, err := Read(b); err != nil {
			f.Fatalf("a seed plan doesn't read: %v\n%s", err, b)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"format":"zap.plan/9","target":{"local":true},"context":{"user":"u","target":"local"},"changes":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Read(data)
		if err != nil {
			return
		}
		c := *p
		c.Hash = ""
		doc, err := canon.Marshal(&c)
		if err != nil {
			t.Fatalf("a plan Read accepted doesn't encode: %v", err)
		}
		var got bytes.Buffer
		if err := hashDoc(&got, p); err != nil {
			t.Fatalf("hashDoc: %v", err)
		}
		if want := fmt.Sprintf("%d:%s\n", len(doc), doc); got.String() != want {
			t.Fatalf("hashDoc wrote\n%q\nthe whole encoding is\n%q", got.String(), want)
		}
		h1, err := Hash(p, scriptOf)
		if err != nil {
			t.Fatalf("Hash: %v", err)
		}
		if h2, _ := Hash(p, scriptOf); h2 != h1 {
			t.Fatalf("Hash gave %s, then %s", h1, h2)
		}
		if h, _ := Hash(&c, scriptOf); h != h1 {
			t.Fatalf("the plan_hash field moved the hash: %s, %s", h1, h)
		}
		w := c
		w.Warnings = append(append([]string{}, c.Warnings...), "one more")
		if h, _ := Hash(&w, scriptOf); h == h1 {
			t.Fatalf("a warning more left the hash %s", h)
		}
		if len(p.Changes) > 0 {
			e := c
			e.Changes = append([]Change{}, c.Changes...)
			e.Changes[0].ID += "x"
			if h, _ := Hash(&e, scriptOf); h == h1 {
				t.Fatalf("a change's id moved, the hash didn't: %s", h)
			}
		}
		if ops := p.Ops(); len(ops) > 0 {
			other := func(name OpName) (Script, bool) {
				s, _ := scriptOf(name)
				if name == ops[len(ops)-1] {
					s.Text += "#\n"
				}
				return s, true
			}
			if h, _ := Hash(p, other); h == h1 {
				t.Fatalf("the script of %s changed, the hash didn't: %s", ops[len(ops)-1], h)
			}
		}
	})
}
