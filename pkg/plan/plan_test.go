package plan

import (
	"strings"
	"testing"

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
			Directory: &declaration.Directory{Path: declaration.Lit("/d")}}, Steps: []Step{}}
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
