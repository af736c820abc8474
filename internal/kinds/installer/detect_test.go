package installer

import (
	"testing"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/detect/detecttest"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

func installerAt(check declaration.Text) *declaration.Installer {
	return &declaration.Installer{URL: "https://example.com/install.sh", Check: check}
}

// TestBuildInstaller: the check path resolves like any path (references,
// ~ and $HOME) and is read elevated, a link followed; a path that can't be
// resolved holds without reading.
func TestBuildInstaller(t *testing.T) {
	env := detecttest.Env(map[string]string{"BIN": "/opt/bin"})
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
		d := NewInstaller(installerAt(c.check), env)
		q := d.Queries()
		if c.reason != "" {
			if got := d.Verdict(nil); len(q) != 0 || got.Verdict != observation.Undetermined || got.Reason != c.reason {
				t.Errorf("%s: %v, %+v; want a hold %q", c.check, q, got, c.reason)
			}
			continue
		}
		want := []detect.Query{{Op: detect.OpType, Lane: observation.LaneElevated, Path: c.path}}
		if len(q) != 1 || q[0] != want[0] {
			t.Errorf("%s: queries %+v, want %+v", c.check, q, want)
		}
	}
	home := detecttest.Env(nil)
	home.Home = ""
	if got := NewInstaller(installerAt(declaration.Lit("~/x")), home).Verdict(nil); got.Verdict != observation.Undetermined {
		t.Errorf("~ on a target with no home: %+v, want a hold", got)
	}
}

// TestInstallerVerdict: anything at the check path is installed; nothing
// there is absent; no answer holds (an installer is never re-run on a
// guess).
func TestInstallerVerdict(t *testing.T) {
	d := &Installer{Path: "/usr/local/bin/tool", Shown: "/usr/local/bin/tool"}
	detecttest.Check(t, d, []detecttest.Case{
		{"a regular file", []detect.Answer{{Status: detect.StatusOK, Type: detect.TypeRegular}}, detect.Converged()},
		{"a directory", []detect.Answer{{Status: detect.StatusOK, Type: detect.TypeDirectory}}, detect.Converged()},
		{"a fifo", []detect.Answer{{Status: detect.StatusOK, Type: detect.TypeFIFO}}, detect.Converged()},
		{"missing (a dangling link too)", []detect.Answer{detecttest.Missing}, detect.Absent()},
		{"denied even as root", []detect.Answer{detecttest.Denied}, detect.Holding("permission denied reading the check path /usr/local/bin/tool")},
		{"timed out", []detect.Answer{detecttest.TimedOut}, detect.Holding("reading the check path /usr/local/bin/tool timed out")},
		{"sudo failed", []detect.Answer{{Status: detect.StatusSudoFailed}}, detect.Holding(detect.SudoFailed)},
		{"failed", []detect.Answer{{Status: detect.StatusFailed, Detail: "the batch broke"}}, detect.Holding("reading the check path /usr/local/bin/tool failed: the batch broke")},
	})
}
