package planner

import (
	"reflect"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

func pkgRes(id, name string, deps ...string) declaration.Resource {
	return declaration.Resource{Common: declaration.Common{ID: id, Type: declaration.KindPackage, DependsOn: deps},
		Body: &declaration.Package{From: map[string]string{"apt": name, "apk": name + "-apk"}}}
}

// planFor plans es on a target whose package manager is manager.
func planFor(t *testing.T, manager string, es ...entry) *plan.Plan {
	t.Helper()
	o := observe(es...)
	o.Declaration.Target.PackageManager = manager
	p, err := Plan(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	return p
}

// shape is a plan's changes as lines: the id, then each step as a note
// ("# ..."), or an operation with its arguments ("= name a b").
func shape(p *plan.Plan) []string {
	var out []string
	for _, c := range p.Changes {
		var steps []string
		for _, s := range c.Steps {
			switch {
			case s.Note != "":
				steps = append(steps, "# "+s.Note)
			case s.Op != nil:
				steps = append(steps, strings.Join(append([]string{"= " + string(s.Op.Name)}, s.Op.Args...), " "))
			case s.Command != nil:
				steps = append(steps, "> "+s.Command.Run.String())
			}
		}
		out = append(out, c.ID+": "+strings.Join(steps, "; "))
	}
	return out
}

func wantShape(t *testing.T, p *plan.Plan, want ...string) {
	t.Helper()
	if got := shape(p); !reflect.DeepEqual(got, want) {
		t.Errorf("plan:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// TestPackageBatchOne: a package alone is batch 1: Zap's own change
// cache-update-apt (type zap, no resource, a create) refreshes the index,
// then the package's change installs it, each as root, with limits.
func TestPackageBatchOne(t *testing.T) {
	p := planFor(t, "apt", absent(pkgRes("rg", "ripgrep")))
	wantShape(t, p, "cache-update-apt: = pkg-update-apt",
		"rg: # batch-install-apt-1: ripgrep, after cache-update-apt; = pkg-install-apt ripgrep")
	for _, s := range []plan.Step{p.Changes[0].Steps[0], p.Changes[1].Steps[1]} {
		if s.Op.Privilege != plan.Root || s.Op.Timeout <= 0 || !s.Op.Path.IsZero() {
			t.Errorf("%s: privilege %s, timeout %d, path %q", s.Op.Name, s.Op.Privilege, s.Op.Timeout, s.Op.Path.String())
		}
	}
	if c := p.Changes[0]; c.Type != plan.KindZap || c.Action != plan.Create || !reflect.ValueOf(c.Resource).IsZero() {
		t.Errorf("the refresh: type %q, action %q, resource %+v", c.Type, c.Action, c.Resource)
	}
	if declaration.BodyOf[*declaration.Package](&p.Changes[1].Resource) == nil || declaration.BodyOf[*declaration.Package](&p.Changes[1].Resource).From["apt"] != "ripgrep" {
		t.Errorf("the change's resource: %+v", p.Changes[1].Resource)
	}
	// The refresh's change reads back from the plan's document, its
	// resource left out, and hashes.
	p.Hash, _ = plan.Hash(p, ops.Script)
	doc, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"action":"create","id":"cache-update-apt","steps":[`; !strings.Contains(string(doc), want) {
		t.Errorf("the plan's document has no %s:\n%s", want, doc)
	}
	if q, err := plan.Read(doc); err != nil || plan.Verify(q, ops.Script) != nil || !reflect.DeepEqual(shape(q), shape(p)) {
		t.Errorf("the plan doesn't read back: %v", err)
	}
	// apk: its own operations and its own names.
	p = planFor(t, "apk", absent(pkgRes("rg", "ripgrep")))
	wantShape(t, p, "cache-update-apk: = pkg-update-apk",
		"rg: # batch-install-apk-1: ripgrep-apk, after cache-update-apk; = pkg-install-apk ripgrep-apk")
	// Every operation the plan uses has a script, so it hashes.
	if _, err := plan.Hash(p, ops.Script); err != nil {
		t.Fatal(err)
	}
}

// TestPackageBatchTogether: packages with no resource between them install
// in one batch, the first change carrying it, each other naming it; a name
// declared twice is installed once; converged packages aren't in it.
func TestPackageBatchTogether(t *testing.T) {
	p := planFor(t, "apt",
		absent(pkgRes("jq", "jq")),
		absent(pkgRes("curl", "curl")),
		converged(pkgRes("git", "git")),
		absent(fileRes("motd", "/etc/motd", "hi")),
		absent(pkgRes("curl-again", "curl")),
		absent(pkgRes("zsh", "zsh", "jq")), // a package after a package: the same batch
	)
	wantShape(t, p,
		"cache-update-apt: = pkg-update-apt",
		"curl: # batch-install-apt-1: curl jq zsh, after cache-update-apt; = pkg-install-apt curl jq zsh",
		"curl-again: # installed by curl's install (batch-install-apt-1)",
		"jq: # installed by curl's install (batch-install-apt-1)",
		"zsh: # installed by curl's install (batch-install-apt-1)",
		"motd: = put",
	)
}

// TestPackageBatchAfterScript: a package after a script after a package is
// batch 2, after the script, with an index refresh of its own (the script
// may have added a repository); a package after a resource that waits on
// no package is still batch 1, after that resource.
func TestPackageBatchAfterScript(t *testing.T) {
	p := planFor(t, "apt",
		absent(pkgRes("gnupg", "gnupg")),
		absent(scriptRes("add-repo", "test -f /etc/apt/sources.list.d/x.list", "add-repo", "gnupg")),
		absent(pkgRes("app", "app", "add-repo")),
		absent(pkgRes("curl", "curl")),
		absent(dirRes("etc-app", "/etc/app")),
		absent(pkgRes("tool", "tool", "etc-app")),
	)
	wantShape(t, p,
		"etc-app: = dir",
		"cache-update-apt: = pkg-update-apt",
		"curl: # batch-install-apt-1: curl gnupg tool, after cache-update-apt; = pkg-install-apt curl gnupg tool",
		"gnupg: # installed by curl's install (batch-install-apt-1)",
		"tool: # installed by curl's install (batch-install-apt-1)",
		"add-repo: > add-repo",
		"cache-update-apt-2: = pkg-update-apt",
		"app: # batch-install-apt-2: app, after cache-update-apt-2; = pkg-install-apt app",
	)
}

// TestPackageBatchChain: package, script, package, file, package: three
// batches, each after what it waits on; what waits on a package of a batch
// runs after the whole batch.
func TestPackageBatchChain(t *testing.T) {
	p := planFor(t, "apt",
		absent(pkgRes("a", "a")),
		absent(scriptRes("s1", "false", "one", "a")),
		absent(pkgRes("b", "b", "s1")),
		absent(fileRes("f", "/etc/f", "x", "b")),
		absent(pkgRes("c", "c", "f")),
		absent(pkgRes("z", "z")),
		absent(fileRes("after-z", "/etc/z", "x", "z")),
	)
	wantShape(t, p,
		"cache-update-apt: = pkg-update-apt",
		"a: # batch-install-apt-1: a z, after cache-update-apt; = pkg-install-apt a z",
		"z: # installed by a's install (batch-install-apt-1)",
		"s1: > one",
		"cache-update-apt-2: = pkg-update-apt",
		"b: # batch-install-apt-2: b, after cache-update-apt-2; = pkg-install-apt b",
		"f: = put",
		"cache-update-apt-3: = pkg-update-apt",
		"c: # batch-install-apt-3: c, after cache-update-apt-3; = pkg-install-apt c",
		"after-z: = put",
	)
}

// TestPackageBatchConverged: a resource that waits on a converged package
// waits on nothing this plan installs, so the package after it is batch 1;
// a package that is held holds what waits on it, and is in no batch.
func TestPackageBatchConverged(t *testing.T) {
	p := planFor(t, "apt",
		converged(pkgRes("a", "a")),
		absent(scriptRes("s1", "false", "one", "a")),
		absent(pkgRes("b", "b", "s1")),
		undetermined(pkgRes("h", "h"), "the package query failed: dpkg-query exited 2, so whether h is installed is unknown"),
		absent(pkgRes("i", "i", "h")),
		absent(pkgRes("j", "j")),
	)
	wantShape(t, p,
		"s1: > one",
		"cache-update-apt: = pkg-update-apt",
		"j: # batch-install-apt-1: j b, after cache-update-apt; = pkg-install-apt j b",
		"b: # installed by j's install (batch-install-apt-1)",
	)
	if len(p.Held) != 2 || p.Held[0].ID != "h" || p.Held[1].ID != "i" {
		t.Errorf("held: %+v", p.Held)
	}
}

// TestPackageBatchNoManager: a package to install on a target whose
// manager has no backend is refused (detection holds such a package, so
// only a forged pass gets here).
func TestPackageBatchNoManager(t *testing.T) {
	for _, m := range []string{"", "pacman"} {
		o := observe(absent(pkgRes("rg", "ripgrep")))
		o.Declaration.Target.PackageManager = m
		if _, err := Plan(o); err == nil || !strings.Contains(err.Error(), `resource "rg": a package to install`) {
			t.Errorf("manager %q: %v", m, err)
		}
	}
	// With nothing to install, no manager is needed.
	p := planFor(t, "", converged(pkgRes("rg", "ripgrep")), absent(fileRes("f", "/f", "x")))
	wantShape(t, p, "f: = put")
}

// TestPackageBatchPure: the same pass plans the same batches, whatever the
// declaration order.
func TestPackageBatchPure(t *testing.T) {
	es := []entry{
		absent(pkgRes("a", "a")),
		absent(scriptRes("s", "false", "s", "a")),
		absent(pkgRes("b", "b", "s")),
		absent(pkgRes("c", "c")),
	}
	first := shape(planFor(t, "apt", es...))
	for i := range es {
		rot := append(append([]entry{}, es[i:]...), es[:i]...)
		if got := shape(planFor(t, "apt", rot...)); !reflect.DeepEqual(got, first) {
			t.Errorf("rotation %d: %v, want %v", i, got, first)
		}
	}
}

// TestPackageRefreshID: a declared resource with the id of a refresh the
// plan needs is refused, naming it; with nothing to install there is no
// refresh, and the id is the resource's own.
func TestPackageRefreshID(t *testing.T) {
	o := observe(absent(pkgRes("rg", "ripgrep")), absent(fileRes("cache-update-apt", "/f", "x")))
	o.Declaration.Target.PackageManager = "apt"
	if _, err := Plan(o); err == nil || !strings.Contains(err.Error(), `resource "cache-update-apt": the id of Zap's own index refresh in front of batch-install-apt-1`) {
		t.Errorf("a resource named cache-update-apt: %v", err)
	}
	p := planFor(t, "apt", converged(pkgRes("rg", "ripgrep")), absent(fileRes("cache-update-apt", "/f", "x")))
	wantShape(t, p, "cache-update-apt: = put")
}

// TestPackageHeldNoRefresh: a batch whose packages are all held isn't
// planned, so it has no refresh; a held package adds nothing to another
// batch.
func TestPackageHeldNoRefresh(t *testing.T) {
	p := planFor(t, "apt",
		undetermined(pkgRes("h", "h"), "the package query failed"),
		absent(pkgRes("i", "i", "h")),
	)
	wantShape(t, p)
	p = planFor(t, "apt",
		undetermined(pkgRes("h", "h"), "the package query failed"),
		absent(pkgRes("j", "j")),
	)
	wantShape(t, p, "cache-update-apt: = pkg-update-apt",
		"j: # batch-install-apt-1: j, after cache-update-apt; = pkg-install-apt j")
}
