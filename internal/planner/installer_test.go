package planner

import (
	"reflect"
	"testing"

	"github.com/zap-go/zap/internal/kinds/installer"
	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

func installerRes(id, url, check, shell string, deps ...string) declaration.Resource {
	return declaration.Resource{
		Common: declaration.Common{ID: id, Type: declaration.KindInstaller, DependsOn: deps},
		Body:   &declaration.Installer{URL: url, Check: declaration.Lit(check), Shell: shell},
	}
}

// TestInstallerSteps: one installer operation as the login user, the URL and
// the shell line as arguments (sh when none is declared); the operation has
// a script, so plan_hash covers it.
func TestInstallerSteps(t *testing.T) {
	p := mustPlan(t, observe(
		absent(installerRes("rust", "https://sh.rustup.rs", "~/.cargo/bin/rustc", "sh -s -- -y")),
		absent(installerRes("tool", "https://example.com/i.sh", "/usr/local/bin/tool", "")),
	))
	want := map[string][]string{"rust": {"https://sh.rustup.rs", "sh -s -- -y"}, "tool": {"https://example.com/i.sh", "sh"}}
	for _, c := range p.Changes {
		step := plan.Step{Type: plan.StepOp, Op: &plan.Op{Name: "installer", Args: want[c.ID], Privilege: plan.Login}}
		if c.Action != plan.Create || len(c.Steps) != 1 || !reflect.DeepEqual(c.Steps[0], step) {
			t.Errorf("%s: %s %+v, want create %+v", c.ID, c.Action, c.Steps, step.Op)
		}
	}
	if _, ok := ops.Script(installer.OpRun); !ok {
		t.Error("no script for the installer operation")
	}
	if _, err := plan.Hash(p, ops.Script); err != nil {
		t.Errorf("plan_hash: %v", err)
	}
}
