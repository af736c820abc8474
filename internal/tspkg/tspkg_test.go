package tspkg

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestEmbeddedIsTheFolder holds the embedded package to the ts/ folder:
// every file of the folder but the Go one is embedded, byte for byte, and
// nothing else is.
func TestEmbeddedIsTheFolder(t *testing.T) {
	dir := filepath.Join("..", "..", "ts")
	var onDisk []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if !strings.HasSuffix(rel, ".go") {
			onDisk = append(onDisk, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var embedded []string
	err = fs.WalkDir(FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			embedded = append(embedded, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(onDisk)
	sort.Strings(embedded)
	if strings.Join(onDisk, "\n") != strings.Join(embedded, "\n") {
		t.Fatalf("the embedded package lists\n\t%s\nbut ts/ holds\n\t%s\n(add the new file's pattern to ts/embed.go's go:embed line)",
			strings.Join(embedded, "\n\t"), strings.Join(onDisk, "\n\t"))
	}
	for _, name := range onDisk {
		want, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		got, err := fs.ReadFile(FS(), name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the embedded bytes differ from ts/%s", name, name)
		}
	}
	for _, must := range []string{"package.json", "index.ts", "types.ts", "env_ref.ts", "recipes/README.md"} {
		if _, err := fs.Stat(FS(), must); err != nil {
			t.Errorf("%s is not embedded: %v", must, err)
		}
	}
}

// TestPackageJSON checks the name and the module type the resolvers rely on.
func TestPackageJSON(t *testing.T) {
	data, err := fs.ReadFile(FS(), "package.json")
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Name string `json:"name"`
		Type string `json:"type"`
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		t.Fatal(err)
	}
	if pkg.Name != Name || pkg.Type != "module" {
		t.Fatalf("package.json has name %q and type %q, want %q and module", pkg.Name, pkg.Type, Name)
	}
}

func TestResolveShipped(t *testing.T) {
	conds := []string{"zap", "import"}
	for sub, want := range map[string]string{
		".":              "index.ts",
		"./env_ref.ts":   "env_ref.ts",
		"./types.ts":     "types.ts",
		"./index.ts":     "index.ts",
		"./package.json": "package.json",
	} {
		got, err := Resolve(sub, conds)
		if err != nil || got != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", sub, got, err, want)
		}
	}
	for _, sub := range []string{"./embed.go", "./recipes/README.md", "./x", "./../go.mod.ts", "././/types.ts"} {
		if got, err := Resolve(sub, conds); !errors.Is(err, ErrNotExported) {
			t.Errorf("Resolve(%q) = %q, %v; want not exported", sub, got, err)
		}
	}
	// A pattern's match that names no file is an error of its own.
	if _, err := Resolve("./nope.ts", conds); err == nil || !strings.Contains(err.Error(), "not a file of the package") {
		t.Errorf("Resolve(./nope.ts): %v", err)
	}
}

func TestResolveExports(t *testing.T) {
	conds := []string{"zap", "import"}
	for _, c := range []struct {
		exports, sub, want string // want "" = not exported, "!" = another error
	}{
		{`"./main.ts"`, ".", "main.ts"},
		{`"./main.ts"`, "./x.ts", ""},
		{`{"zap": "./z.ts", "default": "./d.js"}`, ".", "z.ts"},
		// Condition objects are read in their written order.
		{`{"import": "./i.js", "zap": "./z.ts"}`, ".", "i.js"},
		{`{"types": "./t.d.ts", "default": "./d.js"}`, ".", "d.js"},
		{`{"types": "./t.d.ts", "node": "./n.js"}`, ".", ""},
		{`{".": {"zap": {"import": "./deep.ts"}}}`, ".", "deep.ts"},
		{`{"./a.ts": "./src/a.ts"}`, "./a.ts", "src/a.ts"},
		{`{"./*.ts": "./src/*.ts"}`, "./r/nginx.ts", "src/r/nginx.ts"},
		{`{"./*": "./*", "./internal/*": null}`, "./internal/x.ts", ""},
		{`{"./*": "./lib/*", "./sub/*": "./s/*"}`, "./sub/a.ts", "s/a.ts"},
		{`{"./*": "./*"}`, "./../up.ts", ""},
		{`{".": ["./missing-condition-free.ts"]}`, ".", "missing-condition-free.ts"},
		{`{".": [{"node": "./n.js"}, "./fallback.ts"]}`, ".", "fallback.ts"},
		{`{".": "../outside.ts"}`, ".", "!"},
		{`{".": "./a/../../outside.ts"}`, ".", "!"},
		{`{".": "./a.ts", "zap": "./b.ts"}`, ".", "!"},
	} {
		got, err := resolveExports(json.RawMessage(c.exports), c.sub, conds)
		switch c.want {
		case "":
			if !errors.Is(err, ErrNotExported) {
				t.Errorf("%s %s = %q, %v; want not exported", c.exports, c.sub, got, err)
			}
		case "!":
			if err == nil || errors.Is(err, ErrNotExported) {
				t.Errorf("%s %s = %q, %v; want an error in the exports", c.exports, c.sub, got, err)
			}
		default:
			if err != nil || got != c.want {
				t.Errorf("%s %s = %q, %v; want %q", c.exports, c.sub, got, err, c.want)
			}
		}
	}
}
