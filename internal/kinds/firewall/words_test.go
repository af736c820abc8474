package firewall

import (
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/ops/opcmd"
	"github.com/zap-go/zap/pkg/plan"
)

// TestUfwFormsInScripts: the command each ufw operation's words say it
// runs is in its script, word for word, so a plan's wording can't drift
// from what runs; and a ufw operation has words.
func TestUfwFormsInScripts(t *testing.T) {
	for _, name := range []string{string(OpUfwAllow), string(OpUfwDefault), string(OpUfwEnable)} {
		f, ok := ufwForms[plan.OpName(name)]
		if !ok {
			t.Errorf("%s: no words", name)
			continue
		}
		b, err := scripts.ReadFile("scripts/" + name + ".sh")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(opcmd.Normalize(string(b)), f.cmd) {
			t.Errorf("%s: the script doesn't run %s", name, f.cmd)
		}
	}
}
