package link

import (
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/detect/detecttest"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// TestNewLink: a link's path and target resolve their references and ~
// (a relative target is kept as written); an unset target, one whose
// reference holds a line break, and either under ~ on a target with no
// home hold, saying why and never the value.
func TestNewLink(t *testing.T) {
	env := detecttest.Env(map[string]string{"V": "1.2", "NL": "a\nb"})
	link := func(path string, target declaration.Text) detect.Detector {
		return NewLink(&declaration.Link{Path: declaration.Lit(path), Target: target}, env)
	}
	l := link("~/bin/zig", declaration.Concat(declaration.Part{Lit: "~/zig-"}, declaration.Part{Env: "V"}))
	if got, ok := l.(*Link); !ok || got.Path != "/home/ops/bin/zig" || got.Target != "/home/ops/zig-1.2" || got.TargetShown != "/home/ops/zig-1.2" {
		t.Errorf("link: %#v", l)
	}
	if got, ok := link("/etc/l", declaration.Lit("../lib/x")).(*Link); !ok || got.Target != "../lib/x" {
		t.Errorf("a relative target is kept: %#v", got)
	}
	if r := link("/etc/l", declaration.Ref("UNSET")).Verdict(nil); r.Reason != "target: the reference UNSET is unset or empty, so the link has no target" {
		t.Errorf("unset target: %+v", r)
	}
	if r := link("/etc/l", declaration.Ref("NL")).Verdict(nil); r.Verdict != observation.Undetermined || strings.Contains(r.Reason, "a\nb") {
		t.Errorf("target with a line break: %+v", r)
	}
	env.Home = ""
	for target, hold := range map[string]string{"~/t": "target: is under ~", "../t": ""} {
		d := link("/etc/l", declaration.Lit(target))
		r := d.Verdict(nil)
		switch q := d.Queries(); {
		case hold == "" && len(q) == 0:
			t.Errorf("no home, target %s: holds: %+v", target, r)
		case hold != "" && (len(q) != 0 || !strings.Contains(r.Reason, hold) || !strings.Contains(r.Reason, "declares no home")):
			t.Errorf("no home, target %s: got %d queries and %q, want a hold saying %q", target, len(q), r.Reason, hold)
		}
	}
}

// TestLinkVerdict: the login user reads the link's target; the same
// target converges, another drifts, nothing there (or nothing the login
// user can reach) is absent, and a read that gave nothing to judge holds.
func TestLinkVerdict(t *testing.T) {
	l := &Link{Path: "/usr/local/bin/zig", Shown: "/usr/local/bin/zig", Target: "/opt/zig/zig", TargetShown: "/opt/zig/zig"}
	if q := l.Queries(); len(q) != 1 || q[0].Op != detect.OpReadlink || q[0].Lane != observation.LaneLogin {
		t.Fatalf("queries: %+v", q)
	}
	detecttest.Check(t, l, []detecttest.Case{
		{"same target", []detect.Answer{{Status: detect.StatusOK, Target: "/opt/zig/zig"}}, detect.Converged()},
		{"other target", []detect.Answer{{Status: detect.StatusOK, Target: "/opt/zig-old/zig"}},
			detecttest.Drift(observation.Difference{Field: "target", Observed: "/opt/zig-old/zig", Desired: "/opt/zig/zig"})},
		{"not a symlink or nothing there", []detect.Answer{detecttest.Missing}, detect.Absent()},
		{"unreachable", []detect.Answer{detecttest.Denied}, detect.Absent()},
		{"read failed", []detect.Answer{{Status: detect.StatusFailed, Detail: "boom"}}, detect.Holding("reading the symbolic link /usr/local/bin/zig failed: boom")},
		{"read timed out", []detect.Answer{detecttest.TimedOut}, detect.Holding("reading the symbolic link /usr/local/bin/zig timed out")},
	})
	if r := (&Link{Shown: "/l"}).Verdict(nil); r.Verdict != observation.Undetermined {
		t.Errorf("no answers: %+v", r)
	}
}
