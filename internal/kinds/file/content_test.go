package file

import (
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/detect"

	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

func templateFile(body string, vars map[string]declaration.Var, kinds map[string]string) *declaration.Resource {
	return &declaration.Resource{
		Common: declaration.Common{ID: "t", Type: declaration.KindFile},
		Body: &declaration.File{Path: declaration.Lit("/etc/app.env"), Content: declaration.Content{
			Type: declaration.ContentTemplate, Template: &body, Vars: vars, Kinds: kinds,
		}},
	}
}

func ref(name string) declaration.Var { t := declaration.Ref(name); return declaration.Var{Text: &t} }

// TestBuildTemplate checks that a template's desired digest is its rendered
// content's, its references resolved from the environment, and that a
// reference's value a template can't take holds the file naming the
// variable and the reference, never the value.
func TestBuildTemplate(t *testing.T) {
	r := templateFile("PORT={{port}}\nLIST={{list}}\n", map[string]declaration.Var{
		"port": ref("PORT"),
		"list": {JSON: []byte(`[1, 2]`)},
	}, map[string]string{"port": "port"})
	d := Build(r, testEnv(map[string]string{"PORT": "8080"}))
	f, ok := d.(*File)
	if !ok {
		t.Fatalf("Build gave %T (%+v), want *File", d, d.Verdict(nil))
	}
	want := "PORT=8080\nLIST=[1,2]\n"
	if f.SHA512 != sha512Hex(want) {
		t.Errorf("the desired digest isn't that of %q", want)
	}
	if f.Content != "template (21 bytes rendered)" {
		t.Errorf("Content = %q", f.Content)
	}
	if got := f.Verdict([]detect.Answer{{Status: detect.StatusOK, SHA512: sha512Hex(want)}, isRegular}); got.Verdict != observation.Converged {
		t.Errorf("the rendered bytes read %+v, want converged", got)
	}

	for _, c := range []struct {
		name, value, want string
	}{
		{"newline", "80\nEVIL=1", "content.vars.port: the reference PORT resolves to a value holding a line break, which would add a line to the file"},
		{"carriage return", "80\rX", "content.vars.port: the reference PORT resolves to a value holding a line break, which would add a line to the file"},
		{"nul", "80\x00", "content.vars.port: the reference PORT resolves to a value holding a NUL"},
		{"kind", "80; evil", "content.vars.port: resolves (through PORT) to a value that isn't of kind port"},
	} {
		d := Build(r, testEnv(map[string]string{"PORT": c.value}))
		if q := d.Queries(); len(q) != 0 {
			t.Errorf("%s: queries %v, want none", c.name, q)
		}
		got := d.Verdict(nil)
		if got.Verdict != observation.Undetermined || got.Reason != c.want {
			t.Errorf("%s: %v %q, want undetermined %q", c.name, got.Verdict, got.Reason, c.want)
		}
		if strings.Contains(got.Reason, "evil") || strings.Contains(got.Reason, "EVIL") {
			t.Errorf("%s: the reason shows the value: %q", c.name, got.Reason)
		}
	}
}

func sourceFile(src declaration.Text) *declaration.Resource {
	return &declaration.Resource{
		Common: declaration.Common{ID: "s", Type: declaration.KindFile},
		Body: &declaration.File{Path: declaration.Lit("/srv/copy"), Content: declaration.Content{
			Type: declaration.ContentSource, Path: &src,
		}},
	}
}

// TestBuildSource checks that a source file's path resolves like a path
// field (a reference, ~) and is read with the target in the elevated lane.
func TestBuildSource(t *testing.T) {
	d := Build(sourceFile(declaration.Concat(declaration.Part{Lit: "~/"}, declaration.Part{Env: "NAME"})), testEnv(map[string]string{"NAME": "orig.bin"}))
	q := d.Queries()
	if len(q) != 3 || q[2] != (detect.Query{Op: detect.OpDigest, Lane: observation.LaneElevated, Path: "/home/ops/orig.bin"}) {
		t.Fatalf("queries %v, want the target's digest and type, then the source's digest", q)
	}
	held := Build(sourceFile(declaration.Ref("SRC")), testEnv(map[string]string{"SRC": "/a\nb"}))
	if got := held.Verdict(nil); got.Verdict != observation.Undetermined || !strings.HasPrefix(got.Reason, "content.path: the reference SRC") {
		t.Errorf("a source path with a line break: %+v", got)
	}
	held = Build(sourceFile(declaration.Ref("SRC")), testEnv(nil))
	if got := held.Verdict(nil); got.Verdict != observation.Undetermined || !strings.HasPrefix(got.Reason, "content.path: the reference SRC is unset or empty") {
		t.Errorf("an unset source path: %+v", got)
	}
}

// TestFileVerdictSource checks a source file's verdicts: the target's digest
// against the source's; a source that isn't a regular file of its own, or
// can't be read, holds whatever the target is.
func TestFileVerdictSource(t *testing.T) {
	f := &File{Path: "/srv/copy", Shown: "/srv/copy", Source: "/srv/orig", SourceShown: "/srv/orig"}
	src := detect.Answer{Status: detect.StatusOK, SHA512: wantSum}
	check(t, f, []verdictCase{
		{"converged", []detect.Answer{digestOK, isRegular, src}, detect.Converged()},
		{"drifted", []detect.Answer{digestDiff, isRegular, src},
			detect.Drifted([]observation.Difference{diff("content", "differs", "source /srv/orig")})},
		{"absent", []detect.Answer{missing, missing, src}, detect.Absent()},
		{"source a symlink", []detect.Answer{missing, missing, notRegular(detect.TypeSymlink)},
			detect.Holding("the source /srv/orig is a symbolic link, not a regular file of its own, so Zap doesn't read it")},
		{"source a fifo", []detect.Answer{digestOK, isRegular, notRegular(detect.TypeFIFO)},
			detect.Holding("the source /srv/orig is a fifo, not a regular file of its own, so Zap doesn't read it")},
		{"source a directory", []detect.Answer{digestOK, isRegular, notRegular(detect.TypeDirectory)},
			detect.Holding("the source /srv/orig is a directory, not a regular file of its own, so Zap doesn't read it")},
		{"source a device", []detect.Answer{digestOK, isRegular, notRegular(detect.TypeCharDev)},
			detect.Holding("the source /srv/orig is a character device, not a regular file of its own, so Zap doesn't read it")},
		{"source hard-linked", []detect.Answer{digestOK, isRegular, {Status: detect.StatusHardLinked, Links: 2}},
			detect.Holding("the source /srv/orig has 2 hard links, so Zap doesn't read it: replace it with a copy of its own (a single link)")},
		{"source missing", []detect.Answer{missing, missing, missing},
			detect.Holding("the source /srv/orig doesn't exist, or can't be read")},
		{"source denied", []detect.Answer{digestOK, isRegular, denied},
			detect.Holding("permission denied reading the source /srv/orig")},
	})
	g := &File{Path: "/srv/copy", Shown: "/srv/copy", Source: "/srv/orig", SourceShown: "/srv/orig", Attrs: detect.Attrs{Mode: "644"}}
	check(t, g, []verdictCase{
		{"mode drift", []detect.Answer{digestOK, isRegular, stat(detect.TypeRegular, 0o600, "root", "root"), src},
			detect.Drifted([]observation.Difference{diff("mode", "600", "644")})},
	})
}

// TestBuildBytes checks that a bytes source's desired digest is its
// decoded bytes', so a target file holding them reads converged.
func TestBuildBytes(t *testing.T) {
	b64 := "iVBORwD/Cg=="
	raw := string([]byte{0x89, 'P', 'N', 'G', 0, 0xff, '\n'})
	r := &declaration.Resource{
		Common: declaration.Common{ID: "b", Type: declaration.KindFile},
		Body: &declaration.File{Path: declaration.Lit("/srv/logo.png"), Content: declaration.Content{
			Type: declaration.ContentBytes, Base64: &b64, File: "img/logo.png"}},
	}
	f, ok := Build(r, testEnv(nil)).(*File)
	if !ok {
		t.Fatalf("Build gave no *File")
	}
	if f.SHA512 != sha512Hex(raw) || f.Content != "bytes (7 bytes)" {
		t.Errorf("digest %s, content %q", f.SHA512, f.Content)
	}
	if got := f.Verdict([]detect.Answer{{Status: detect.StatusOK, SHA512: sha512Hex(raw)}, isRegular}); got.Verdict != observation.Converged {
		t.Errorf("the bytes read %+v, want converged", got)
	}
}
