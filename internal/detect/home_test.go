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
		path declaration.Text
		hold string // "" resolves
	}{
		{"a path under ~", declaration.Lit("~/x"), "path: is under ~"},
		{"a path under $HOME", declaration.Lit("$HOME/x"), "path: is under ~"},
		{"a reference resolving under ~", declaration.Ref("P"), "path: is under ~"},
		{"an absolute path", declaration.Lit("/etc/x"), ""},
	}
	for _, c := range cases {
		path, _, reason := resolvePath("path", c.path, env)
		switch {
		case c.hold == "" && reason != "":
			t.Errorf("%s: holds: %s", c.name, reason)
		case c.hold == "" && path != "/etc/x":
			t.Errorf("%s: resolves to %q", c.name, path)
		case c.hold != "" && (!strings.Contains(reason, c.hold) || !strings.Contains(reason, "declares no home") || !ForWantOfHome(reason)):
			t.Errorf("%s: got %q, want a hold saying %q", c.name, reason, c.hold)
		}
	}
}
