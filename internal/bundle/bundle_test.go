package bundle

import (
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zeebo/blake3"

	"github.com/zap-go/zap/internal/project"
)

// write makes the files of a project under a new directory and returns it.
func write(t testing.TB, files map[string]string) string {
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
		if err := os.WriteFile(p, []byte(strings.ReplaceAll(body, "$DIR", dir)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func build(t *testing.T, config string) (*Bundle, error) {
	t.Helper()
	p, err := project.Find(config)
	if err != nil {
		t.Fatal(err)
	}
	return Build(p)
}

func wantRefused(t *testing.T, config, want string) {
	t.Helper()
	_, err := build(t, config)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want a bundle.Error containing %q", err, err, want)
	}
	if !strings.Contains(e.Error(), want) {
		t.Fatalf("err = %q, want it to contain %q", e.Error(), want)
	}
}

func TestAbsoluteImportOutside(t *testing.T) {
	dir := write(t, map[string]string{
		"outside/secret.ts": "export const s = 1;",
		"proj/package.json": `{"name": "p"}`,
		"proj/zap.ts":       "import { s } from '$DIR/outside/secret.ts';\nexport default () => s;",
		"proj/inside.ts":    "export const i = 1;",
		"proj/absinside.ts": "import { i } from '$DIR/proj/inside.ts';\nexport default () => i;",
	})
	wantRefused(t, filepath.Join(dir, "proj/zap.ts"), `leads outside the project (`+filepath.Join(dir, "proj")+`)`)
	if _, err := build(t, filepath.Join(dir, "proj/absinside.ts")); err != nil {
		t.Fatalf("an absolute import inside the project: %v", err)
	}
}

func TestSourceMappingURLNotFollowed(t *testing.T) {
	// esbuild would open the file a sourceMappingURL comment names, and
	// quote it in an error; the loader drops the comment first.
	dir := write(t, map[string]string{
		"outside.map":       "not a source map at all",
		"proj/package.json": `{"name": "p"}`,
		"proj/lib.js":       "export const x = 1;\n//# sourceMappingURL=../outside.map\n",
		"proj/zap.ts":       "import { x } from './lib.js';\nexport default () => x;\n/*# sourceMappingURL=$DIR/outside.map */\n",
	})
	b, err := build(t, filepath.Join(dir, "proj/zap.ts"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.Code, "sourceMappingURL") || strings.Contains(b.Code, "outside.map") {
		t.Fatalf("the bundle kept a sourceMappingURL:\n%s", b.Code)
	}
	if !strings.Contains(string(b.SourceMap), `"sources":["zap.ts","lib.js"]`) {
		t.Fatalf("the source map's sources aren't relative to the project: %s", b.SourceMap)
	}
}

func TestNoTsconfigRead(t *testing.T) {
	// With this tsconfig.json, the unused value import would be kept and
	// its module bundled and run; the bundler reads no tsconfig.json, so
	// it is elided (after it resolved).
	dir := write(t, map[string]string{
		"package.json":  `{"name": "p"}`,
		"tsconfig.json": `{"compilerOptions": {"verbatimModuleSyntax": true}}`,
		"zap.ts":        "import { Zap } from './types.ts';\nexport default (zap: Zap) => zap;\n",
		"types.ts":      "export type Zap = unknown;\nconsole.log('types.ts ran');\n",
	})
	b, err := build(t, filepath.Join(dir, "zap.ts"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.Code, "types.ts ran") {
		t.Fatalf("the module imported for a type alone was bundled:\n%s", b.Code)
	}
}

// TestUnusedImportResolves: an import TypeScript elides, because nothing
// uses it or only types do, must resolve all the same, and so must the
// imports of a module only such an import reaches; a type-only import is
// stripped unresolved.
func TestUnusedImportResolves(t *testing.T) {
	dir := write(t, map[string]string{
		"package.json": `{"name": "p"}`,
		"unused.ts":    "import { pad } from 'left-pad';\nexport default () => 1;\n",
		"typeuse.ts":   "import { T } from './missing.ts';\nexport default (t?: T) => t;\n",
		"deep.ts":      "import { T } from './types.ts';\nexport default (t?: T) => t;\n",
		"types.ts":     "import { U } from './missing.ts';\nexport type T = U;\n",
		"typesok.ts":   "import { T } from './ok.ts';\nexport default (t?: T) => t;\n",
		"ok.ts":        "export type T = 1;\nconsole.log('ok.ts ran');\n",
		"typeonly.ts":  "import type { T } from './missing.ts';\nexport type { U } from 'absent';\nexport default (t?: T) => t;\n",
	})
	wantRefused(t, filepath.Join(dir, "unused.ts"), `unused.ts:1:21: package "left-pad" is not installed in the project`)
	wantRefused(t, filepath.Join(dir, "typeuse.ts"), `typeuse.ts:1:19: Could not resolve "./missing.ts"`)
	wantRefused(t, filepath.Join(dir, "deep.ts"), `types.ts:1:19: Could not resolve "./missing.ts"`)
	_, err := build(t, filepath.Join(dir, "unused.ts"))
	var e *Error
	if !errors.As(err, &e) || strings.Join(e.Hints, "\n") != unusedHint {
		t.Errorf("unused.ts: %v, want the hint %q", err, unusedHint)
	}
	if _, err := build(t, filepath.Join(dir, "typeonly.ts")); err != nil {
		t.Errorf("type-only imports: %v", err)
	}
	// A module imported for types alone is an input, though not bundled.
	b, err := build(t, filepath.Join(dir, "typesok.ts"))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, in := range b.Inputs {
		found = found || in.Path == filepath.Join(dir, "ok.ts") && !in.Absent()
	}
	if !found || strings.Contains(b.Code, "ok.ts ran") {
		t.Errorf("ok.ts: an input %v, bundled %v; want an input, not bundled", found, strings.Contains(b.Code, "ok.ts ran"))
	}
}

// TestImportSites counts the places an import that a bundle might drop
// could be written: a from, import or require before a string or a
// comment, less a type-only import's.
func TestImportSites(t *testing.T) {
	for _, tt := range []struct {
		src  string
		want int
	}{
		{"export default (zap) => zap;", 0},
		{"const a = Array.from('abc'); export const from = 1;", 0},
		{"import { a } from './a.ts';", 1},
		{"import { a } from /* here */ './a.ts';", 1},
		{"import './side.ts';\nimport{b}from\"./b.ts\";", 2},
		{"export * from './a.ts'; export { b } from './b.ts';", 2},
		{"import x = require('./x');", 1},
		{"import type { T } from './t.ts'; export type { U } from './u.ts'; export type * as V from './v.ts';", 0},
		{"import type T from './t.ts'; import type from './type.ts';", 1},
		{"import type from from './from.ts';", 0},
		{"// import { a } from './a.ts'\nconst s = \"from './b.ts'\";", 2},
		{"const m = await import('./m.ts');", 0},
	} {
		if got := importSites(tt.src); got != tt.want {
			t.Errorf("importSites(%q) = %d, want %d", tt.src, got, tt.want)
		}
	}
}

// TestDroppedImportFound: an import the first pass drops is resolved by
// the second however it is written, and the second pass runs whenever a
// module holds more import sites than the first resolved.
func TestDroppedImportFound(t *testing.T) {
	dir := write(t, map[string]string{
		"package.json": `{"name": "p"}`,
		"comment.ts":   "import { T } from /* the types */ './missing.ts';\nexport default (t?: T) => t;\n",
		"named.ts":     "import type from './missing.ts';\nexport default () => 1;\n",
		"besides.ts":   "import './side.ts';\nimport { T } from './missing.ts';\nexport default (t?: T) => t;\n",
		"side.ts":      "export const s = Array.from('x');\n",
	})
	for _, c := range []string{"comment.ts", "named.ts", "besides.ts"} {
		wantRefused(t, filepath.Join(dir, c), `Could not resolve "./missing.ts"`)
	}
}

func TestLowered(t *testing.T) {
	// Async generators and for await are lowered for the interpreter.
	dir := write(t, map[string]string{
		"package.json": `{"name": "p"}`,
		"zap.ts": `async function* gen() { yield 1; }
export default async () => { for await (const x of gen()) { return x; } };`,
	})
	b, err := build(t, filepath.Join(dir, "zap.ts"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.Code, "async function*") || strings.Contains(b.Code, "for await") {
		t.Fatalf("not lowered:\n%s", b.Code)
	}
}

func TestRefusals(t *testing.T) {
	dir := write(t, map[string]string{
		"package.json":                `{"name": "p"}`,
		"jsx.ts":                      "import x from './x.tsx';\nexport default () => x;",
		"x.tsx":                       "export default 1;",
		"meta.ts":                     "export default () => import.meta.url;",
		"nested.ts":                   "import { a } from 'a';\nexport default () => a;",
		"node_modules/a/package.json": `{"name": "a", "exports": "./a.js"}`,
		"node_modules/a/a.js":         "import { b } from 'b';\nexport const a = b;",
		"node_modules/a/node_modules/b/package.json": `{"name": "b", "exports": "./b.js"}`,
		"node_modules/a/node_modules/b/b.js":         "export const b = 1;",
		"scope.ts":                                   "import x from '@scope';\nexport default () => x;",
	})
	wantRefused(t, filepath.Join(dir, "jsx.ts"), `a config imports .ts, .mts, .js, .mjs and .json files, not ".tsx"`)
	wantRefused(t, filepath.Join(dir, "meta.ts"), `"import.meta" is not available`)
	// A bare import resolves from the project's own node_modules only,
	// never one nested in a package.
	wantRefused(t, filepath.Join(dir, "nested.ts"), `package "b" is not installed in the project`)
	wantRefused(t, filepath.Join(dir, "scope.ts"), `"@scope" is not a package name`)
}

func TestPackageName(t *testing.T) {
	for in, want := range map[string]string{
		"a":         "a",
		"a/b/c.js":  "a",
		"@s/a":      "@s/a",
		"@s/a/b.ts": "@s/a",
		"@s":        "",
		"@s/":       "",
		"../x":      "",
	} {
		if got := packageName(in); got != want {
			t.Errorf("packageName(%q) = %q, want %q", in, got, want)
		}
	}
}

// An import of /etc/passwd is refused for where it leads, before its
// missing extension is mentioned.
func TestImportEtcPasswd(t *testing.T) {
	dir := write(t, map[string]string{
		"proj/package.json": `{"name": "p"}`,
		"proj/zap.ts":       "import p from '/etc/passwd';\nexport default () => p;",
		"proj/json.ts":      "import p from '/etc/passwd.json';\nexport default () => p;",
	})
	for _, c := range []string{"zap.ts", "json.ts"} {
		wantRefused(t, filepath.Join(dir, "proj", c), `leads outside the project (`+filepath.Join(dir, "proj")+`)`)
	}
}

// Inputs lists every module and package.json the bundle read, with the
// blake3 of its bytes, and the paths whose absence decided a resolution.
func TestInputs(t *testing.T) {
	dir := write(t, map[string]string{
		"proj/package.json":                    `{"name": "p"}`,
		"proj/conf/package.json":               `{"type": "module"}`,
		"proj/conf/zap.ts":                     "import { a } from '../lib/a.js';\nimport { b } from 'pkg';\nimport { env_ref } from '@zap-go/zap/env_ref.ts';\nexport default () => [a, b, env_ref];",
		"proj/lib/a.ts":                        "export const a = 1;",
		"proj/node_modules/pkg/package.json":   `{"name": "pkg", "exports": "./index.js"}`,
		"proj/node_modules/pkg/index.js":       "export const b = 2;",
		"proj/node_modules/other/package.json": `{"name": "other", "exports": "./index.js"}`,
	})
	b, err := build(t, filepath.Join(dir, "proj/conf/zap.ts"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, in := range b.Inputs {
		rel, _ := filepath.Rel(dir, in.Path)
		if in.Absent() {
			got = append(got, rel+" absent")
			continue
		}
		data, err := os.ReadFile(in.Path)
		if err != nil {
			t.Fatal(err)
		}
		sum := blake3.Sum256(data)
		if in.Blake3 != hex.EncodeToString(sum[:]) {
			t.Errorf("%s: blake3 %s, not that of its bytes", rel, in.Blake3)
		}
		got = append(got, rel)
	}
	want := []string{
		"proj/conf/package.json",
		"proj/conf/zap.ts",
		"proj/lib/a.js absent",
		"proj/lib/a.ts",
		"proj/lib/package.json absent",
		"proj/node_modules/@zap-go/zap absent",
		"proj/node_modules/package.json absent",
		"proj/node_modules/pkg/index.js",
		"proj/node_modules/pkg/package.json",
		"proj/package.json",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("inputs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
