package bundle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmbeddedPackage: with no node_modules, @zap-go/zap and its subpaths
// resolve to the copy zap-eval carries, and positions name its files by
// package.
func TestEmbeddedPackage(t *testing.T) {
	dir := write(t, map[string]string{
		"package.json": `{"name": "p"}`,
		"zap.ts": `import type { Builder } from '@zap-go/zap';
import { env_ref } from '@zap-go/zap/env_ref.ts';
import { env_ref as again } from '@zap-go/zap';
export default (zap: Builder) => [env_ref('A'), again('B'), zap];
`,
	})
	b, err := build(t, filepath.Join(dir, "zap.ts"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.Code, `Symbol.for("zap.env_ref")`) || !strings.Contains(b.Code, "\uFDD0") {
		t.Fatalf("the bundle doesn't hold the embedded env_ref:\n%s", b.Code)
	}
	if !strings.Contains(string(b.SourceMap), `"@zap-go/zap/env_ref.ts"`) {
		t.Fatalf("the source map doesn't name the embedded file by package: %s", b.SourceMap)
	}
}

// TestLinkedPackageFirst: a copy in the project's node_modules, linked or
// installed, takes precedence over the embedded one.
func TestLinkedPackageFirst(t *testing.T) {
	dir := write(t, map[string]string{
		"checkout/package.json": `{"name": "@zap-go/zap", "exports": {"./*.ts": {"zap": "./*.ts"}}}`,
		"checkout/env_ref.ts":   "import { tag } from './tag.ts';\nexport const env_ref = (n: string) => tag + n;\n",
		"checkout/tag.ts":       "export const tag = 'linked-copy:';\n",
		"proj/package.json":     `{"name": "p"}`,
		"proj/zap.ts":           "import { env_ref } from '@zap-go/zap/env_ref.ts';\nexport default () => env_ref('A');\n",
	})
	if err := os.MkdirAll(filepath.Join(dir, "proj/node_modules/@zap-go"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "checkout"), filepath.Join(dir, "proj/node_modules/@zap-go/zap")); err != nil {
		t.Fatal(err)
	}
	b, err := build(t, filepath.Join(dir, "proj/zap.ts"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.Code, "linked-copy:") || strings.Contains(b.Code, "zap.env_ref") {
		t.Fatalf("the linked copy wasn't the one bundled:\n%s", b.Code)
	}
	// What the linked copy doesn't export doesn't resolve, even though the
	// embedded copy has it.
	if err := os.WriteFile(filepath.Join(dir, "proj/root.ts"), []byte("import { env_ref } from '@zap-go/zap';\nexport default () => env_ref('A');\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, filepath.Join(dir, "proj/root.ts"), `Could not resolve "@zap-go/zap"`)
}

func TestEmbeddedRefusals(t *testing.T) {
	dir := write(t, map[string]string{
		"package.json": `{"name": "p"}`,
		"go.ts":        "import x from '@zap-go/zap/embed.go';\nexport default () => x;",
		"missing.ts":   "import x from '@zap-go/zap/nothing.ts';\nexport default () => x;",
		"readme.ts":    "import x from '@zap-go/zap/recipes/README.md';\nexport default () => x;",
	})
	wantRefused(t, filepath.Join(dir, "go.ts"), `"@zap-go/zap/embed.go" is not exported by @zap-go/zap (the copy zap-eval carries; the project's node_modules has none)`)
	wantRefused(t, filepath.Join(dir, "readme.ts"), `"@zap-go/zap/recipes/README.md" is not exported by @zap-go/zap`)
	wantRefused(t, filepath.Join(dir, "missing.ts"), `not a file of the package`)

	// A name in node_modules that leads nowhere is an error, not a reason
	// to fall back on the embedded copy.
	if err := os.MkdirAll(filepath.Join(dir, "node_modules/@zap-go"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "gone"), filepath.Join(dir, "node_modules/@zap-go/zap")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "zap.ts"), []byte("import { env_ref } from '@zap-go/zap';\nexport default () => env_ref('A');\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, filepath.Join(dir, "zap.ts"), `package "@zap-go/zap" is not installed in the project`)
}

func TestEmbeddedRelative(t *testing.T) {
	for _, c := range []struct{ importer, spec, want string }{
		{"@zap-go/zap/index.ts", "./env_ref.ts", "@zap-go/zap/env_ref.ts"},
		{"@zap-go/zap/recipes/x.ts", "../types.ts", "@zap-go/zap/types.ts"},
		{"@zap-go/zap/index.ts", "../outside.ts", ""},
		{"@zap-go/zap/index.ts", "./nothing.ts", ""},
		{"@zap-go/zap/index.ts", "/etc/passwd.ts", ""},
		{"@zap-go/zap/index.ts", "./recipes", ""},
	} {
		res, _ := resolveEmbeddedRelative(c.importer, c.spec)
		if c.want == "" {
			if len(res.Errors) == 0 {
				t.Errorf("%s from %s resolved to %s, want an error", c.spec, c.importer, res.Path)
			}
			continue
		}
		if len(res.Errors) > 0 || res.Path != c.want || res.Namespace != embedded {
			t.Errorf("%s from %s = %s:%s %v, want %s", c.spec, c.importer, res.Namespace, res.Path, res.Errors, c.want)
		}
	}
}
