package project

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestFindWalksPastMarkers(t *testing.T) {
	dir := tree(t, map[string]string{
		"package.json":                  `{"name": "root", "private": true}`,
		"a/package.json":                `{"type": "module"}`,
		"a/b/package.json":              `{"type": "module", "sideEffects": false}`,
		"a/b/zap.ts":                    "",
		"a/node_modules/x/package.json": `{"name": "x"}`,
		"a/node_modules/x/zap.ts":       "",
	})
	for _, cfg := range []string{"a/b/zap.ts", "a/node_modules/x/zap.ts"} {
		p, err := Find(filepath.Join(dir, cfg))
		if err != nil {
			t.Fatal(err)
		}
		if p.Root != dir {
			t.Errorf("%s: root = %s, want %s", cfg, p.Root, dir)
		}
	}
}

func TestFindNearest(t *testing.T) {
	dir := tree(t, map[string]string{
		"package.json":       `{"name": "outer"}`,
		"inner/package.json": `{"name": "inner"}`,
		"inner/zap.ts":       "",
	})
	p, err := Find(filepath.Join(dir, "inner/zap.ts"))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "inner"); p.Root != want || p.Config != filepath.Join(want, "zap.ts") {
		t.Fatalf("project = %+v, want root %s", p, want)
	}
}

func TestFindRefusals(t *testing.T) {
	dir := tree(t, map[string]string{
		"array/package.json": `[1]`,
		"array/zap.ts":       "",
		"type/package.json":  `{"name": "t", "type": 1}`,
		"type/zap.ts":        "",
		"dangling/zap.ts":    "",
		"dir/package.json/x": "",
		"dir/zap.ts":         "",
	})
	if err := os.Symlink(filepath.Join(dir, "nothing"), filepath.Join(dir, "dangling/package.json")); err != nil {
		t.Fatal(err)
	}
	for cfg, want := range map[string]string{
		"array/zap.ts":    "package.json is not a JSON object",
		"type/zap.ts":     `package.json: "type" is not a string`,
		"dangling/zap.ts": "package.json is a link to nothing",
		"dir/zap.ts":      "package.json is not a regular file",
		"missing.ts":      "missing.ts not found",
	} {
		_, err := Find(filepath.Join(dir, cfg))
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(e.Msg, want) {
			t.Errorf("%s: err = %v, want %q", cfg, err, want)
		}
	}
}

func TestLinkedPackages(t *testing.T) {
	dir := tree(t, map[string]string{
		"proj/package.json":                    `{"name": "p"}`,
		"proj/zap.ts":                          "",
		"proj/node_modules/local/package.json": `{"name": "local"}`,
		"shared/one/package.json":              `{"name": "one"}`,
		"shared/two/package.json":              `{"name": "@s/two"}`,
	})
	nm := filepath.Join(dir, "proj/node_modules")
	for link, target := range map[string]string{
		"one":     filepath.Join(dir, "shared/one"),
		"@s/two":  filepath.Join(dir, "shared/two"),
		"inside":  filepath.Join(nm, "local"),
		"nowhere": filepath.Join(dir, "missing"),
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(nm, link)), 0o755)
		if err := os.Symlink(target, filepath.Join(nm, link)); err != nil {
			t.Fatal(err)
		}
	}
	p, err := Find(filepath.Join(dir, "proj/zap.ts"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "shared/one"), filepath.Join(dir, "shared/two")}
	if !reflect.DeepEqual(p.Packages, want) {
		t.Fatalf("packages = %v, want %v", p.Packages, want)
	}
}

func TestConfigThroughLink(t *testing.T) {
	// A config reached through a link is the file it leads to: its project
	// is found from there.
	dir := tree(t, map[string]string{
		"real/package.json": `{"name": "real"}`,
		"real/zap.ts":       "",
		"elsewhere/.keep":   "",
	})
	link := filepath.Join(dir, "elsewhere/zap.ts")
	if err := os.Symlink(filepath.Join(dir, "real/zap.ts"), link); err != nil {
		t.Fatal(err)
	}
	p, err := Find(link)
	if err != nil {
		t.Fatal(err)
	}
	if p.Root != filepath.Join(dir, "real") {
		t.Fatalf("root = %s", p.Root)
	}
}

func TestWithin(t *testing.T) {
	for _, c := range []struct {
		p, dir string
		want   bool
	}{
		{"/a/b", "/a", true},
		{"/a", "/a", true},
		{"/ab", "/a", false},
		{"/a/b", "/", true},
		{"/", "/a", false},
	} {
		if got := Within(c.p, c.dir); got != c.want {
			t.Errorf("Within(%q, %q) = %v", c.p, c.dir, got)
		}
	}
}
