package evaluate_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/bundle"
	"github.com/zap-go/zap/internal/evaluate"
	"github.com/zap-go/zap/internal/project"
	"github.com/zap-go/zap/internal/projfile"
)

// projectEval bundles and evaluates the config zap.ts of a project made of
// files, reading its project files as zap-eval does (projfile).
func projectEval(t *testing.T, files map[string]string) (*evaluate.Evaluation, string, error) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "proj")
	files["proj/package.json"] = `{"name": "p", "type": "module"}`
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := project.Find(filepath.Join(root, "zap.ts"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := bundle.Build(p)
	if err != nil {
		t.Fatal(err)
	}
	d, err := projfile.Open(p.Root)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ev, err := evaluate.Evaluate(context.Background(), evaluate.Script{Name: b.Name, Code: b.Code, SourceMap: b.SourceMap},
		evaluate.Options{Export: bundle.GlobalName, Files: d})
	return ev, root, err
}

// TestProjectFiles: each helper reads its file relative to the module that
// calls it (zap.ts, or a module in a subfolder), and the declaration
// carries the content and the file, relative to the project.
func TestProjectFiles(t *testing.T) {
	ev, root, err := projectEval(t, map[string]string{
		"proj/zap.ts": `import { project_text, project_bytes } from '@zap-go/zap';
import { site, banner } from './roles/web.ts';
export default (zap) => {
	zap.target({local: true});
	zap.file({id: 'motd', path: '/etc/motd', content: project_text('./files/motd.txt')});
	zap.file({id: 'again', path: '/etc/motd2', content: banner});
	zap.file({id: 'site', path: '/etc/site.conf', content: site('example.org')});
	zap.file({id: 'logo', path: '/srv/logo.png', content: project_bytes('./files/logo.png')});
};
`,
		"proj/roles/web.ts": `import { project_template, project_text } from '@zap-go/zap';
export const site = (domain: string) => project_template('./site.conf', {vars: {domain}, kinds: {domain: 'domain'}});
// Read at the module's top level, before the config's function runs.
export const banner = project_text('../files/motd.txt');
`,
		"proj/files/motd.txt":  "hello\n",
		"proj/roles/site.conf": "server_name {{domain}};\n",
		"proj/files/logo.png":  "\x89PNG\x00\xff",
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := ev.Check(); err != nil {
		t.Fatal(err)
	}
	out, err := ev.Decl.Encode()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"content":{"content":"hello\n","file":"files/motd.txt","type":"inline"}`,
		`"content":{"file":"roles/site.conf","kinds":{"domain":"domain"},"template":"server_name {{domain}};\n","type":"template","vars":{"domain":"example.org"}}`,
		`"content":{"base64":"iVBORwD/","file":"files/logo.png","type":"bytes"}`,
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the declaration lacks %s:\n%s", want, out)
		}
	}
	var paths []string
	for _, f := range ev.Files {
		paths = append(paths, strings.TrimPrefix(f.Path, root+"/"))
		if len(f.Blake3) != 64 {
			t.Errorf("%s: blake3 %q", f.Path, f.Blake3)
		}
	}
	if got := strings.Join(paths, " "); got != "files/logo.png files/motd.txt roles/site.conf" {
		t.Errorf("files read: %s", got)
	}
}

// TestProjectFileRefused: a file the helpers can't read, and content that
// names a project file it isn't, fail at the call that made them.
func TestProjectFileRefused(t *testing.T) {
	for _, tc := range []struct{ name, call, want string }{
		{"outside", `content: project_text('../outside.txt')`,
			`zap.ts:4:46: project_text("../outside.txt"): leads outside the project`},
		{"missing", `content: project_text('./nope.txt')`,
			`zap.ts:4:46: project_text("./nope.txt"): nope.txt: no such file in the project`},
		{"not relative", `content: project_text('motd.txt')`,
			`zap.ts:4:46: project_text("motd.txt"): name the file relative to this module, starting ./ or ../`},
		{"binary as text", `content: project_template('./logo.png')`,
			`zap.ts:4:46: project_template("./logo.png"): logo.png is not text: a NUL byte at offset 4; place it byte for byte with project_bytes`},
		{"by hand", `content: {type: 'inline', content: 'hi\n', file: 'motd.txt'}`,
			`zap.ts:4:80: zap.file "f": content.file: "motd.txt" is no file this evaluation read`},
		{"changed", `content: {...project_text('./motd.txt'), content: 'other'}`,
			`zap.file "f": content.content: isn't what motd.txt holds`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := projectEval(t, map[string]string{
				"proj/zap.ts": `import { project_text, project_template } from '@zap-go/zap';
export default (zap) => {
	zap.target({local: true});
	zap.file({id: 'f', path: '/etc/f', ` + tc.call + `});
};
`,
				"proj/motd.txt": "hi\n",
				"proj/logo.png": "\x89PNG\x00",
				"outside.txt":   "secret\n",
			})
			var all *evaluate.Errors
			var one *evaluate.Error
			if !errors.As(err, &all) && !errors.As(err, &one) {
				t.Fatalf("err = %v (%T), want the config's problem", err, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %q\nwant %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("the error quotes the file outside: %q", err)
			}
		})
	}
}
