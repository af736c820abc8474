package build

import (
	"reflect"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// TestBuildSteps: the build operation carries the pin, the extract form,
// the cwd and the source's name (never run or env, which stay in the
// resource), then a put of the sidecar beside the output holding the
// provenance; a build with no pin has no steps.
func TestBuildSteps(t *testing.T) {
	pin := strings.Repeat("a", 64)
	strip := 2
	b := &declaration.Build{
		Source: declaration.Source{Type: "remote", URL: declaration.Lit("https://x.org/zig-0.14.tar.xz?dl=1"),
			Extract: &declaration.Extract{Type: declaration.ExtractTarXZ, StripComponents: &strip}},
		Run:    declaration.Lit("zig build"),
		Output: declaration.Concat(declaration.Part{Env: "PREFIX"}, declaration.Part{Lit: "/bin/zig"}),
		Env:    map[string]declaration.Text{"TOKEN": declaration.Ref("TOKEN")},
	}
	got, err := steps(b, kind.Planned{Pin: pin})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("%d steps", len(got))
	}
	op := got[0].Op
	if op.Name != vocab.OpBuild || op.Privilege != plan.Login || op.Path.String() != "{env:PREFIX}/bin/zig" {
		t.Errorf("build op %+v", op)
	}
	if want := []string{pin, "tar.xz", "2", ".", "zig-0.14.tar.xz"}; !reflect.DeepEqual(op.Args, want) {
		t.Errorf("args %q, want %q", op.Args, want)
	}
	put := got[1].Op
	if put.Name != plan.OpPut || put.Privilege != plan.Elevated || put.Path.String() != "{env:PREFIX}/bin/zig.zap-build" {
		t.Errorf("sidecar put %+v", put)
	}
	if put.Content == nil || *put.Content != Provenance(b, pin)+"\n" {
		t.Errorf("sidecar content %v", put.Content)
	}
	if _, err := steps(b, kind.Planned{}); err == nil {
		t.Error("a build with no pin has steps")
	}
}

// TestSourceName: an unextracted source is named by its URL's last path
// segment when that is a plain file name with no reference, else "source".
func TestSourceName(t *testing.T) {
	for _, c := range []struct {
		url  declaration.Text
		want string
	}{
		{declaration.Lit("https://x.org/a/hello-1.0.tar.gz"), "hello-1.0.tar.gz"},
		{declaration.Lit("https://x.org/hello.c?x=/y#z"), "hello.c"},
		{declaration.Lit("https://x.org/"), "source"},
		{declaration.Lit("https://x.org/a%20b"), "source"},
		{declaration.Lit("https://x.org/.hidden"), "source"},
		{declaration.Concat(declaration.Part{Lit: "https://x/"}, declaration.Part{Env: "F"}), "source"},
	} {
		if got := sourceName(c.url); got != c.want {
			t.Errorf("sourceName(%s) = %q, want %q", c.url.String(), got, c.want)
		}
	}
}
