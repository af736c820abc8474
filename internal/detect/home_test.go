package detect

import (
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/declaration"
)

// A target with no home (a remote one that declares none) holds a path
// under ~ rather than guessing one (a link's target:
// internal/kinds/link's TestNewLink).
func TestNoHome(t *testing.T) {
	env := testEnv(map[string]string{"P": "~/x"})
	env.Home = ""
	cases := []struct {
		name string
		r    *declaration.Resource
		hold string // "" reads on
	}{
		{"a file under ~", fileAt(declaration.Lit("~/x")), "path: is under ~"},
		{"a file under $HOME", fileAt(declaration.Lit("$HOME/x")), "path: is under ~"},
		{"a reference resolving under ~", fileAt(declaration.Ref("P")), "path: is under ~"},
		{"an absolute file", fileAt(declaration.Lit("/etc/x")), ""},
	}
	for _, c := range cases {
		d := Build(c.r, env)
		q := d.Queries()
		switch {
		case c.hold == "" && len(q) == 0:
			t.Errorf("%s: holds: %+v", c.name, d.Verdict(nil))
		case c.hold != "":
			r := d.Verdict(nil)
			if len(q) != 0 || !strings.Contains(r.Reason, c.hold) || !strings.Contains(r.Reason, "declares no home") {
				t.Errorf("%s: got %d queries and %q, want a hold saying %q", c.name, len(q), r.Reason, c.hold)
			}
		}
	}
}
