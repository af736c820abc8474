package detect

import (
	"testing"

	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

func installerAt(check declaration.Text) *declaration.Resource {
	return &declaration.Resource{
		Common: declaration.Common{ID: "i", Type: declaration.KindInstaller},
		Body:   &declaration.Installer{URL: "https://example.com/install.sh", Check: check},
	}
}

// TestBuildInstaller: the check path resolves like any path (references,
// ~ and $HOME) and is read elevated, a link followed; a path that can't be
// resolved holds without reading.
func TestBuildInstaller(t *testing.T) {
	env := testEnv(map[string]string{"BIN": "/opt/bin"})
	for _, c := range []struct {
		check  declaration.Text
		path   string
		reason string
	}{
		{declaration.Lit("/usr/local/bin/tool"), "/usr/local/bin/tool", ""},
		{declaration.Lit("~/.cargo/bin/cargo"), "/home/ops/.cargo/bin/cargo", ""},
		{declaration.Lit("$HOME/.local/bin/x"), "/home/ops/.local/bin/x", ""},
		{declaration.Concat(declaration.Part{Env: "BIN"}, declaration.Part{Lit: "/tool"}), "/opt/bin/tool", ""},
		{declaration.Ref("UNSET"), "", "check: the reference UNSET is unset or empty, so the path isn't absolute"},
	} {
		d := Build(installerAt(c.check), env)
		q := d.Queries()
		if c.reason != "" {
			if got := d.Verdict(nil); len(q) != 0 || got.Verdict != observation.Undetermined || got.Reason != c.reason {
				t.Errorf("%s: %v, %+v; want a hold %q", c.check, q, got, c.reason)
			}
			continue
		}
		want := []Query{{Op: OpType, Lane: observation.LaneElevated, Path: c.path}}
		if len(q) != 1 || q[0] != want[0] {
			t.Errorf("%s: queries %+v, want %+v", c.check, q, want)
		}
	}
	home := testEnv(nil)
	home.Home = ""
	if got := Build(installerAt(declaration.Lit("~/x")), home).Verdict(nil); got.Verdict != observation.Undetermined {
		t.Errorf("~ on a target with no home: %+v, want a hold", got)
	}
}

// TestInstallerVerdict: anything at the check path is installed; nothing
// there is absent; no answer holds (an installer is never re-run on a
// guess).
func TestInstallerVerdict(t *testing.T) {
	d := &Installer{Path: "/usr/local/bin/tool", Shown: "/usr/local/bin/tool"}
	check(t, d, []verdictCase{
		{"a regular file", []Answer{isRegular}, converged()},
		{"a directory", []Answer{isDir}, converged()},
		{"a fifo", []Answer{isFIFO}, converged()},
		{"missing (a dangling link too)", []Answer{missing}, absent()},
		{"denied even as root", []Answer{denied}, hold("permission denied reading the check path /usr/local/bin/tool")},
		{"timed out", []Answer{timedOut}, hold("reading the check path /usr/local/bin/tool timed out")},
		{"sudo failed", []Answer{{Status: StatusSudoFailed}}, hold(SudoFailed)},
		{"failed", []Answer{{Status: StatusFailed, Detail: "the batch broke"}}, hold("reading the check path /usr/local/bin/tool failed: the batch broke")},
	})
}
