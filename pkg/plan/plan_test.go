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

// TestValidateZapChange: a change of Zap's own has an id, no resource, and
// is a create with no drift and no trigger; no two changes share an id.
func TestValidateZapChange(t *testing.T) {
	refresh := func() Change {
		return Change{ID: "cache-update-apt", Type: KindZap, Action: Create, Steps: []Step{
			{Type: StepOp, Op: &Op{Name: "pkg-update-apt", Privilege: Root}},
		}}
	}
	dir := Change{ID: "d", Type: declaration.KindDirectory, Action: Create,
		Resource: declaration.Resource{Common: declaration.Common{ID: "d", Type: declaration.KindDirectory},
			Body: &declaration.Directory{Path: declaration.Lit("/d")}}, Steps: []Step{}}
	for _, c := range []struct {
		name string
		edit func(*Change)
		with []Change
		want string
	}{
		{"ok", func(*Change) {}, nil, ""},
		{"ok beside a resource", func(*Change) {}, []Change{dir}, ""},
		{"no id", func(c *Change) { c.ID = "" }, nil, "needs an id"},
		{"a resource", func(c *Change) { c.Resource = dir.Resource }, nil, "declares no resource"},
		{"an update", func(c *Change) { c.Action = Update }, nil, "a create with no drift"},
		{"drift", func(c *Change) { c.Drift = []observation.Difference{{Field: "x"}} }, nil, "a create with no drift"},
		{"a trigger", func(c *Change) { c.Trigger = &Trigger{Action: observation.Restart} }, nil, "a create with no drift"},
		{"a second id", func(c *Change) { c.ID = "d" }, []Change{dir}, "a second change with this id"},
	} {
		z := refresh()
		c.edit(&z)
		p := &Plan{Format: Format, Changes: append(append([]Change{}, c.with...), z)}
		err := p.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	// Encoded, the refresh has no resource, and it reads back.
	p := &Plan{Format: Format, Target: declaration.Target{Local: true}, Changes: []Change{refresh()}}
	b, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `"resource"`) {
		t.Errorf("the refresh encodes a resource: %s", b)
	}
	if _, err := Read(b); err != nil {
		t.Errorf("doesn't read back: %v\n%s", err, b)
	}
}

// TestHashDocIsTheWholeEncoding: what Hash writes for the document, a
// change at a time, is byte for byte the record of the whole plan's
// canonical encoding with an empty plan_hash: for no changes, for changes
// whose bytes need escaping (HTML characters, U+2028, a byte that isn't
// UTF-8, a quote), with every optional block of the plan set, and for a
// plan of another format, which is encoded whole.
func TestHashDocIsTheWholeEncoding(t *testing.T) {
	file, refresh := hashFixtureChanges("<a href=\"x\">&</a>\u2028\xff\n")
	full := &Plan{Format: Format, Target: declaration.Target{Local: true}, Context: observation.Context{Target: "local", User: "u", Home: "/home/u"},
		References: []observation.Reference{{Name: "A", Value: "<b>"}}, Unresolved: []string{"B"},
		Changes: []Change{refresh, file}, Held: []Hold{{ID: "h", Type: declaration.KindFile, Reason: "why"}}, Warnings: []string{"w"}, Hash: strings.Repeat("f", 64)}
	other := *full
	other.Format = "zap.plan/9"
	for name, p := range map[string]*Plan{
		"no changes":     {Format: Format, Changes: []Change{}},
		"nil changes":    {Format: Format},
		"one change":     {Format: Format, Changes: []Change{file}},
		"every block":    full,
		"another format": &other,
		"a hundred alike": {Format: Format, Changes: func() []Change {
			out := make([]Change, 100)
			for i := range out {
				out[i] = file
				out[i].ID = strings.Repeat("x", i+1)
			}
			return out
		}()},
	} {
		c := *p
		c.Hash = ""
		doc, err := canon.Marshal(&c)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := hashDoc(&got, p); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := fmt.Sprintf("%d:%s\n", len(doc), doc); got.String() != want {
			t.Errorf("%s: hashDoc wrote\n%s\nwant\n%s", name, got.String(), want)
		}
	}
}

// TestHashCoversTheBootstrapMode: a plan read with --bootstrap as the same
// account the target's user names has another plan_hash than the plan read
// without it, so neither binds the other's wetrun.
func TestHashCoversTheBootstrapMode(t *testing.T) {
	user := declaration.Lit("ops")
	p := &Plan{Format: Format, Target: declaration.Target{Host: &user, User: &user, BootstrapUser: &user},
		Context: observation.Context{Target: "h", User: "ops"}, Changes: []Change{}}
	boot := *p
	boot.Context.Bootstrap = true
	none := func(OpName) (Script, bool) { return Script{}, false }
	plain, err := Hash(p, none)
	if err != nil {
		t.Fatal(err)
	}
	booted, err := Hash(&boot, none)
	if err != nil {
		t.Fatal(err)
	}
	if plain == booted {
		t.Errorf("the --bootstrap plan and the plain one share plan_hash %s", plain)
	}
}
