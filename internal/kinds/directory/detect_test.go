package directory

import (
	"testing"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/detect/detecttest"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

var isDir = detect.Answer{Status: detect.StatusOK, Type: detect.TypeDirectory}

func stat(t detect.FileType, mode uint32, owner, group string) detect.Answer {
	return detect.Answer{Status: detect.StatusOK, Type: t, Mode: mode, Owner: owner, Group: group}
}

func diff(field, observed, desired string) observation.Difference {
	return observation.Difference{Field: field, Observed: observed, Desired: desired}
}

// TestDirectoryVerdict: existence is read as the login user, following a
// link; the mode, owner and group, when any is declared, by an elevated
// lstat, only the declared ones compared.
func TestDirectoryVerdict(t *testing.T) {
	plain := &Directory{Path: "/srv/app", Shown: "/srv/app"}
	if q := plain.Queries(); len(q) != 1 || q[0].Op != detect.OpType || q[0].Lane != observation.LaneLogin {
		t.Fatalf("queries: %+v", q)
	}
	detecttest.Check(t, plain, []detecttest.Case{
		{"a directory", []detect.Answer{isDir}, detect.Converged()},
		{"nothing there", []detect.Answer{detecttest.Missing}, detect.Absent()},
		{"unreachable", []detect.Answer{detecttest.Denied}, detect.Absent()},
		{"a regular file", []detect.Answer{{Status: detect.StatusOK, Type: detect.TypeRegular}}, detect.Absent()},
		{"read timed out", []detect.Answer{detecttest.TimedOut}, detect.Holding("reading /srv/app timed out")},
		{"read failed", []detect.Answer{{Status: detect.StatusFailed, Detail: "boom"}}, detect.Holding("reading /srv/app failed: boom")},
	})
	managed := &Directory{Path: "/srv/app", Shown: "/srv/app", Attrs: detect.Attrs{Mode: "750", Owner: "app"}}
	if q := managed.Queries(); len(q) != 2 || q[1].Op != detect.OpStat || q[1].Lane != observation.LaneElevated {
		t.Fatalf("queries: %+v", q)
	}
	detecttest.Check(t, managed, []detecttest.Case{
		{"nothing there: the stat is never consulted", []detect.Answer{detecttest.Missing, {}}, detect.Absent()},
		{"matches", []detect.Answer{isDir, stat(detect.TypeDirectory, 0o750, "app", "whatever")}, detect.Converged()},
		{"differs", []detect.Answer{isDir, stat(detect.TypeDirectory, 0o755, "root", "root")},
			detecttest.Drift(diff("mode", "755", "750"), diff("owner", "root", "app"))},
		{"symlink to a directory", []detect.Answer{isDir, stat(detect.TypeSymlink, 0o777, "app", "app")},
			detecttest.Drift(diff("type", "symbolic link", "directory"))},
		{"unreadable stat", []detect.Answer{isDir, detecttest.Denied}, detect.Holding("permission denied reading the mode and owner of /srv/app")},
		{"stat timed out", []detect.Answer{isDir, detecttest.TimedOut}, detect.Holding("reading the mode and owner of /srv/app timed out")},
		{"gone between reads", []detect.Answer{isDir, detecttest.Missing}, detect.Holding("/srv/app changed while it was read: nothing is there now")},
		{"swapped between reads", []detect.Answer{isDir, stat(detect.TypeRegular, 0o644, "app", "app")}, detect.Holding("/srv/app changed while it was read: it is now a regular file")},
	})
	if r := (&Directory{Shown: "/d"}).Verdict(nil); r.Verdict != observation.Undetermined {
		t.Errorf("no answers: %+v", r)
	}
}

// TestNewDirectory: the path resolves its references and ~, the declared
// attributes are kept, and a path that can't resolve holds.
func TestNewDirectory(t *testing.T) {
	env := detecttest.Env(map[string]string{"APP": "/srv/app"})
	d := NewDirectory(&declaration.Directory{Path: declaration.Concat(declaration.Part{Env: "APP"}, declaration.Part{Lit: "/data"}), Mode: "750", Owner: "app"}, env)
	if got, ok := d.(*Directory); !ok || got.Path != "/srv/app/data" || got.Attrs != (detect.Attrs{Mode: "750", Owner: "app"}) {
		t.Errorf("directory: %#v", d)
	}
	if path, owner, group := d.(detect.Placed).Placement(); path != "/srv/app/data" || owner != "app" || group != "" {
		t.Errorf("placement %q %q %q", path, owner, group)
	}
	if r := NewDirectory(&declaration.Directory{Path: declaration.Ref("UNSET")}, env).Verdict(nil); r.Verdict != observation.Undetermined {
		t.Errorf("an unset path: %+v", r)
	}
}
