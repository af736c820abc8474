package file

import (
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// TestNewFile: a file's detector resolves its path (detect.ResolvePath:
// references, ~, a trailing slash) and knows its inline content's digest
// before anything is read; a path that can't resolve holds, never showing
// the value; a remote file whose pin is tracked, with no lock to read it
// from, holds reading nothing.
func TestNewFile(t *testing.T) {
	env := testEnv(map[string]string{"APP": "/srv/app", "NL": "/srv/a\nb", "KEY": "s3cret"}, "KEY")
	for _, c := range []struct {
		path        declaration.Text
		want, shown string
	}{
		{declaration.Lit("~/x/"), "/home/ops/x", "/home/ops/x"},
		{declaration.Concat(declaration.Part{Env: "APP"}, declaration.Part{Lit: "/motd"}), "/srv/app/motd", "/srv/app/motd"},
		{declaration.Concat(declaration.Part{Lit: "/srv/"}, declaration.Part{Env: "KEY"}), "/srv/s3cret", "/srv/{env:KEY}"},
	} {
		f, ok := Build(fileAt(c.path), env).(*File)
		if !ok {
			t.Fatalf("%s: not a file's detector", c.path.String())
		}
		// sha512("hello")
		if f.Path != c.want || f.Shown != c.shown || !strings.HasPrefix(f.SHA512, "9b71d224bd62f378") || f.Content != "inline (5 bytes)" {
			t.Errorf("%s: %+v", c.path.String(), f)
		}
	}
	d := Build(fileAt(declaration.Ref("NL")), env)
	if r := d.Verdict(nil); len(d.Queries()) != 0 || r.Verdict != observation.Undetermined || strings.Contains(r.Reason, "srv/a") {
		t.Errorf("a path holding a line break: %+v", r)
	}
	url := declaration.Lit("https://example.com/x")
	remote := declaration.Resource{Common: declaration.Common{ID: "f", Type: declaration.KindFile}, Body: &declaration.File{Path: declaration.Lit("/f"),
		Content: declaration.Content{Type: declaration.ContentRemote, URL: &url}}}
	d = Build(&remote, testEnv(nil))
	if r := d.Verdict(nil); len(d.Queries()) != 0 || r.Verdict != observation.Undetermined || r.Reason != "its pin is tracked in zap.lock, and this pass reads no lock" {
		t.Errorf("a tracked remote file with no lock: %+v", r)
	}
}

// TestFileSeen: a drifted file's Result carries the digest it read as Seen,
// what its update is planned from; a converged or absent one carries none.
func TestFileSeen(t *testing.T) {
	f := &File{Path: "/etc/motd", Shown: "/etc/motd", SHA512: wantSum, Content: "inline (5 bytes)"}
	file := detect.Answer{Status: detect.StatusOK, Type: detect.TypeRegular}
	if r := f.Verdict([]detect.Answer{{Status: detect.StatusOK, SHA512: otherSum}, file}); r.Verdict != observation.Drifted || r.Seen != otherSum {
		t.Errorf("drifted: %+v, want Seen %q", r, otherSum)
	}
	if r := f.Verdict([]detect.Answer{digestOK, file}); r.Seen != "" {
		t.Errorf("converged: Seen %q, want none", r.Seen)
	}
	if r := f.Verdict([]detect.Answer{missing, missing}); r.Seen != "" {
		t.Errorf("absent: Seen %q, want none", r.Seen)
	}
}
