package project

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
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

func TestFindModeRefusals(t *testing.T) {
	dir := tree(t, map[string]string{
		"open/package.json":      `{"name": "open"}`,
		"open/zap.ts":            "",
		"opendir/package.json":   `{"name": "opendir"}`,
		"opendir/zap.ts":         "",
		"real/package.json":      `{"name": "real"}`,
		"real/zap.ts":            "",
		"walk/package.json":      `{"name": "above"}`,
		"walk/shared/sub/zap.ts": "",
		"fifo/zap.ts":            "",
		"notdir/zap.ts":          "",
		"file":                   "",
	})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Chmod(filepath.Join(dir, "open/zap.ts"), 0o666))
	must(os.Chmod(filepath.Join(dir, "opendir"), 0o777))
	must(os.Chmod(filepath.Join(dir, "real/zap.ts"), 0o646))
	must(os.Symlink(filepath.Join(dir, "real/zap.ts"), filepath.Join(dir, "link.ts")))
	must(os.Chmod(filepath.Join(dir, "walk/shared"), 0o777))
	must(syscall.Mkfifo(filepath.Join(dir, "fifo/package.json"), 0o644))
	must(os.Symlink(filepath.Join(dir, "file/package.json"), filepath.Join(dir, "notdir/package.json")))
	for cfg, want := range map[string]string{
		"open/zap.ts":            "open/zap.ts is writable by every user (mode 0666)",
		"opendir/zap.ts":         "opendir, which every user can write",
		"link.ts":                "real/zap.ts is writable by every user (mode 0646)",
		"walk/shared/sub/zap.ts": "the walk stopped below " + filepath.Join(dir, "walk/shared") + ", which every user can write",
		"fifo/zap.ts":            "fifo/package.json is a FIFO, refused unopened",
		"notdir/zap.ts":          "notdir/package.json: the path goes through something that isn't a directory",
	} {
		_, err := Find(filepath.Join(dir, cfg))
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(e.Msg, want) {
			t.Errorf("%s: err = %v, want %q", cfg, err, want)
		}
	}
}

func TestLinkedThroughShared(t *testing.T) {
	dir := tree(t, map[string]string{
		"proj/package.json":      `{"name": "p"}`,
		"proj/zap.ts":            "",
		"open/pkg/package.json":  `{"name": "pkg"}`,
		"safe/pkg2/package.json": `{"name": "pkg2"}`,
		"safe/pkg3/package.json": `{"name": "pkg3"}`,
		"hop/.keep":              "",
	})
	if err := os.Chmod(filepath.Join(dir, "open"), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, "hop"), 0o777); err != nil {
		t.Fatal(err)
	}
	nm := filepath.Join(dir, "proj/node_modules")
	os.MkdirAll(nm, 0o755)
	// pkg lives in a directory every user can write; pkg2 is safe, but
	// reached through a link sitting in one; pkg3 is safe and reached
	// directly.
	for link, target := range map[string]string{
		"pkg":  filepath.Join(dir, "open/pkg"),
		"pkg2": filepath.Join(dir, "hop/pkg2"),
		"pkg3": filepath.Join(dir, "safe/pkg3"),
	} {
		if err := os.Symlink(target, filepath.Join(nm, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "safe/pkg2"), filepath.Join(dir, "hop/pkg2")); err != nil {
		t.Fatal(err)
	}
	p, err := Find(filepath.Join(dir, "proj/zap.ts"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(dir, "safe/pkg3")}; !reflect.DeepEqual(p.Packages, want) {
		t.Fatalf("packages = %v, want %v", p.Packages, want)
	}
}
