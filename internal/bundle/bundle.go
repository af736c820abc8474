// Package bundle turns a config and the modules it imports into one script
// the evaluator runs, with esbuild.
//
// The script is an IIFE that assigns the config module's exports to the
// global GlobalName. TypeScript is stripped, the syntax lowered to what the
// interpreter runs (ES2022 without async generators or for await), and a
// source map maps positions back to the project's files.
//
// Resolution is strict and bounded by the project:
//   - import() and require() are refused, and so are node: built-ins;
//   - a relative import names its extension;
//   - every file read is under the project or a package its node_modules
//     links, after symbolic links are resolved;
//   - a bare import resolves only through <project>/node_modules/<package>,
//     by the package.json "exports" of that package (never its main), under
//     the conditions zap, import and default;
//   - but @zap-go/zap (internal/tspkg) resolves to the copy zap-eval carries
//     when the project's node_modules has none: its exports are read the
//     same way and its files are served from memory, in a namespace of
//     their own, where a relative import stays inside the package;
//   - every import resolves, also one TypeScript elides because nothing
//     uses it or only types do (a second pass resolves those and bundles
//     nothing); only a type-only import (import type, export type) is
//     stripped unresolved;
//   - no tsconfig.json is read, and a sourceMappingURL comment is dropped so
//     esbuild never opens the file it names.
//
// Every warning esbuild gives is an error: direct eval, an import.meta that
// would be empty, a duplicate key in an object literal.
package bundle

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/evanw/esbuild/pkg/api"

	"github.com/zap-go/zap/internal/project"
	"github.com/zap-go/zap/internal/tspkg"
)

// GlobalName is the global the bundle assigns the config module's exports to.
const GlobalName = "__zap_config"

// MaxModule is the largest module file read, in bytes.
const MaxModule = 16 << 20

// Bundle is the script to run.
type Bundle struct {
	// Name is the script's file name (for positions in stack traces).
	Name string
	// Code is the script.
	Code string
	// SourceMap maps positions in Code back to the modules, named relative
	// to the project.
	SourceMap []byte
	// Inputs is everything on disk the bundle depends on, sorted by path:
	// every module and package.json read, with the blake3 of the bytes
	// read, and every path whose absence decided a resolution. The same
	// inputs with the same bytes make the same bundle.
	Inputs []Input
}

// Error is a config that can't be bundled: the config's problem. Each
// message is one line, with the file and position where esbuild knew it.
type Error struct {
	Messages []string
	Hints    []string
}

func (e *Error) Error() string { return strings.Join(e.Messages, "\n") }

// namespace is the esbuild namespace of the files this package loads itself.
const namespace = "zap"

// embedded is the esbuild namespace of the files of the @zap-go/zap zap-eval
// carries. Their paths are the package name and the file, such as
// @zap-go/zap/env_ref.ts, which is how positions name them.
const embedded = "zap-embedded"

// conditions are the exports conditions of the embedded @zap-go/zap: what
// esbuild resolves a package under, given zap (it adds import, and default
// always applies).
var conditions = []string{"zap", "import"}

// reentry marks a resolution this package hands back to esbuild.
type reentry struct{}

// Build bundles the config of p.
func Build(p *project.Project) (*Bundle, error) {
	r := &resolver{p: p}
	outfile := filepath.Join(p.Root, "zap-config.js")
	opts := r.options(outfile)
	opts.TsconfigRaw = `{"compilerOptions":{}}`
	opts.Sourcemap = api.SourceMapExternal
	opts.SourcesContent = api.SourcesContentExclude
	res := api.Build(opts)
	if len(res.Errors) > 0 || len(res.Warnings) > 0 {
		return nil, r.failure(append(res.Errors, res.Warnings...))
	}
	if r.mayHaveDropped() {
		if err := r.checkImports(outfile); err != nil {
			return nil, err
		}
	}
	var code, smap []byte
	for _, f := range res.OutputFiles {
		switch f.Path {
		case outfile:
			code = f.Contents
		case outfile + ".map":
			smap = f.Contents
		}
	}
	if code == nil || smap == nil {
		return nil, errors.New("esbuild wrote no bundle")
	}
	smap, err := relativeMap(smap, p.Root)
	if err != nil {
		return nil, err
	}
	return &Bundle{Name: filepath.Base(outfile), Code: string(code), SourceMap: smap, Inputs: r.in.list()}, nil
}

// options are the build options both passes share.
func (r *resolver) options(outfile string) api.BuildOptions {
	return api.BuildOptions{
		EntryPoints:   []string{r.p.Config},
		AbsWorkingDir: r.p.Root,
		Outfile:       outfile,
		Write:         false,
		Bundle:        true,
		Format:        api.FormatIIFE,
		GlobalName:    GlobalName,
		Platform:      api.PlatformNeutral,
		Target:        api.ES2022,
		Supported: map[string]bool{
			"async-generator": false,
			"for-await":       false,
			// The interpreter parses \p{...} but never matches it: let
			// esbuild turn such a literal into a RegExp call, which the
			// evaluator refuses.
			"regexp-unicode-property-escapes": false,
		},
		MainFields:    []string{},
		Conditions:    []string{"zap"},
		Charset:       api.CharsetUTF8,
		LogLevel:      api.LogLevelSilent,
		LegalComments: api.LegalCommentsNone,
		Plugins: []api.Plugin{{
			Name:  pluginName,
			Setup: r.setup,
		}},
	}
}

// pluginName names this package's esbuild plugin, and so the messages it
// gives.
const pluginName = "zap"

// unusedHint is the advice for an import that resolves nowhere though
// nothing uses it.
const unusedHint = "every import must resolve, also one nothing uses: remove it or install what it names; an import of types alone is written import type"

// checkImports resolves every import the bundle left out. TypeScript
// elides an import whose names nothing uses, or only types use, and esbuild
// never resolves what it elided; but a config's imports must all resolve,
// so a second pass keeps every import but a type-only one (import type,
// export type: the verbatimModuleSyntax rule, under which import { type T }
// is kept) and resolves each the way the first did, loading the modules
// only it reaches to resolve their imports too. The bundle stays the
// first pass's: a module imported for types alone never runs. Only the
// plugin's messages count here: a module that isn't bundled can't fail it
// for anything else, such as a name it doesn't export.
func (r *resolver) checkImports(outfile string) error {
	opts := r.options(outfile)
	opts.EntryPoints = []string{checkEntry}
	opts.Plugins = []api.Plugin{{Name: pluginName, Setup: r.setupCheck}}
	opts.TsconfigRaw = `{"compilerOptions":{"verbatimModuleSyntax":true}}`
	res := api.Build(opts)
	var msgs []api.Message
	for _, m := range res.Errors {
		if m.PluginName == pluginName {
			msgs = append(msgs, m)
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	err := r.failure(msgs)
	var e *Error
	if errors.As(err, &e) {
		e.Hints = append(e.Hints, unusedHint)
	}
	return err
}

// checkEntry is the entry module of the second pass, in a namespace of its
// own: it imports the config for nothing.
const checkEntry = "zap-check"

// setupCheck is the plugin of the second pass. Every module it resolves is
// marked free of side effects, so, imported by an entry that uses none of
// its exports, each is parsed and its imports resolved, but none printed.
func (r *resolver) setupCheck(b api.PluginBuild) {
	b.OnResolve(api.OnResolveOptions{Filter: ".*"}, func(args api.OnResolveArgs) (api.OnResolveResult, error) {
		if _, ok := args.PluginData.(reentry); ok {
			return api.OnResolveResult{}, nil
		}
		switch {
		case args.Kind == api.ResolveEntryPoint:
			return api.OnResolveResult{Path: checkEntry, Namespace: checkEntry}, nil
		case args.Namespace == checkEntry:
			return api.OnResolveResult{Path: r.p.Config, Namespace: namespace, SideEffects: api.SideEffectsFalse}, nil
		}
		res, err := r.resolveOnce(b, args)
		res.SideEffects = api.SideEffectsFalse
		return res, err
	})
	b.OnLoad(api.OnLoadOptions{Filter: ".*", Namespace: checkEntry}, func(api.OnLoadArgs) (api.OnLoadResult, error) {
		src := `import "config";`
		return api.OnLoadResult{Contents: &src, Loader: api.LoaderJS}, nil
	})
	r.setupLoad(b, false)
}

type resolver struct {
	p  *project.Project
	in inputs

	// loaded is what load gave for each file, so that the second pass
	// reads the bytes the first bundled and recorded, and resolved what
	// resolve gave for each import that resolved, so that the second pass
	// finds it where the first did, without looking again.
	mu       sync.Mutex
	loaded   map[string]api.OnLoadResult
	resolved map[importKey]api.OnResolveResult

	// sites and asked are, for each module the first pass loaded (by
	// namespace and path), how many imports it may hold that a bundle
	// could drop (importSites) and the imports of it the first pass
	// resolved.
	sites map[string]int
	asked map[string]map[importKey]bool
}

// moduleKey names a module by its namespace and path.
func moduleKey(namespace, path string) string { return namespace + ":" + path }

// noted records a module's import sites, once it is loaded.
func (r *resolver) noted(namespace, path string, res api.OnLoadResult) {
	n := 0
	if res.Contents != nil && res.Loader != api.LoaderJSON {
		n = importSites(*res.Contents)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sites == nil {
		r.sites = map[string]int{}
	}
	r.sites[moduleKey(namespace, path)] = n
}

// mayHaveDropped reports whether the first pass may have left an import
// unresolved: TypeScript drops an import nothing uses, or only types use,
// and esbuild resolves none it dropped. Unless some module holds more
// import sites than the first pass resolved imports of it, none was
// dropped, and the second pass (checkImports) would resolve nothing the
// first didn't.
func (r *resolver) mayHaveDropped() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for m, n := range r.sites {
		if n > len(r.asked[m]) {
			return true
		}
	}
	return false
}

// The places in a module's text where an import could be written that a
// bundle might drop: each from, import and require followed by the
// string it names (or by a comment, which may come between), wherever it
// is, a comment's or a string's included. Each import has at least one,
// so a module with no more than the first pass resolved lost none. A
// type-only import or export (import type ... from), which no pass
// resolves, is taken off again: it holds one from-site.
var (
	siteRE     = regexp.MustCompile(`from\s*['"/]|\bimport\s*['"/]|require\s*[(/]`)
	typeOnlyRE = regexp.MustCompile(`\b(?:import|export)\s+type\s+(?:\{[^{}]*\}|\*(?:\s+as\s+[A-Za-z_$][\w$]*)?|[A-Za-z_$][\w$]*)\s+from\s*['"]`)
)

// importSites counts the import sites of src.
func importSites(src string) int {
	if !strings.Contains(src, "from") && !strings.Contains(src, "import") && !strings.Contains(src, "require") {
		return 0
	}
	return len(siteRE.FindAllStringIndex(src, -1)) - len(typeOnlyRE.FindAllStringIndex(src, -1))
}

// importKey is an import as its resolution depends on it.
type importKey struct {
	importer, namespace, dir, path, with string
	kind                                 api.ResolveKind
}

func keyOf(args api.OnResolveArgs) importKey {
	with := make([]string, 0, len(args.With))
	for k, v := range args.With {
		with = append(with, k+"="+v)
	}
	sort.Strings(with)
	return importKey{args.Importer, args.Namespace, args.ResolveDir, args.Path, strings.Join(with, "\x00"), args.Kind}
}

// resolveOnce is resolve, remembered.
func (r *resolver) resolveOnce(b api.PluginBuild, args api.OnResolveArgs) (api.OnResolveResult, error) {
	k := keyOf(args)
	r.mu.Lock()
	res, ok := r.resolved[k]
	r.mu.Unlock()
	if ok {
		return res, nil
	}
	res, err := r.resolve(b, args)
	if err == nil && len(res.Errors) == 0 {
		r.mu.Lock()
		if r.resolved == nil {
			r.resolved = map[importKey]api.OnResolveResult{}
		}
		r.resolved[k] = res
		r.mu.Unlock()
	}
	return res, err
}

func (r *resolver) setup(b api.PluginBuild) {
	b.OnResolve(api.OnResolveOptions{Filter: ".*"}, func(args api.OnResolveArgs) (api.OnResolveResult, error) {
		if _, ok := args.PluginData.(reentry); ok {
			return api.OnResolveResult{}, nil
		}
		if args.Kind != api.ResolveEntryPoint && args.Kind != api.ResolveJSDynamicImport {
			r.ask(args)
		}
		return r.resolveOnce(b, args)
	})
	r.setupLoad(b, true)
}

// ask records an import the first pass resolves, by its importer.
func (r *resolver) ask(args api.OnResolveArgs) {
	m := moduleKey(args.Namespace, args.Importer)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.asked == nil {
		r.asked = map[string]map[importKey]bool{}
	}
	if r.asked[m] == nil {
		r.asked[m] = map[importKey]bool{}
	}
	r.asked[m][keyOf(args)] = true
}

// setupLoad has the plugin load the files of the project, the packages it
// links and the embedded @zap-go/zap; with note, the first pass's, noting
// each module's import sites.
func (r *resolver) setupLoad(b api.PluginBuild, note bool) {
	for _, l := range []struct {
		namespace string
		load      func(api.OnLoadArgs) (api.OnLoadResult, error)
	}{{namespace, r.load}, {embedded, loadEmbedded}} {
		b.OnLoad(api.OnLoadOptions{Filter: ".*", Namespace: l.namespace}, func(args api.OnLoadArgs) (api.OnLoadResult, error) {
			res, err := l.load(args)
			if note && err == nil && len(res.Errors) == 0 {
				r.noted(l.namespace, args.Path, res)
			}
			return res, err
		})
	}
}

func fail(format string, a ...any) (api.OnResolveResult, error) {
	return api.OnResolveResult{Errors: []api.Message{{Text: fmt.Sprintf(format, a...)}}}, nil
}

func (r *resolver) resolve(b api.PluginBuild, args api.OnResolveArgs) (api.OnResolveResult, error) {
	spec := args.Path
	switch args.Kind {
	case api.ResolveJSDynamicImport:
		return fail("import(%q) is refused: a config imports statically; write import ... from %q at the top of the module", spec, spec)
	case api.ResolveJSRequireCall, api.ResolveJSRequireResolve:
		return fail("require(%q) is refused: write import ... from %q at the top of the module", spec, spec)
	case api.ResolveEntryPoint:
		return api.OnResolveResult{Path: r.p.Config, Namespace: namespace}, nil
	case api.ResolveJSImportStatement:
	default:
		return fail("%q: this kind of import is refused", spec)
	}
	if strings.HasPrefix(spec, "node:") {
		return fail("%q: node built-ins are not available: a config can only compute and import modules from its project", spec)
	}
	relative := strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../") || spec == "." || spec == ".."
	switch {
	case relative || strings.HasPrefix(spec, "/"):
		noExt := false
		if ext := filepath.Ext(spec); ext == "" || strings.Contains(ext, "/") {
			noExt = true
		}
		if args.Namespace == embedded {
			if noExt {
				return r.noExtension(spec)
			}
			return resolveEmbeddedRelative(args.Importer, spec)
		}
		// Refuse a path that is outside as written before esbuild looks
		// (the sandbox would only let it say it can't read there), and
		// before asking for an extension: import '/etc/passwd' is
		// refused for where it leads.
		target := filepath.FromSlash(spec)
		if !filepath.IsAbs(target) {
			target = filepath.Join(args.ResolveDir, target)
		}
		target = filepath.Clean(target)
		if !r.admitted(realish(target)) {
			return r.outside(spec)
		}
		if noExt {
			return r.noExtension(spec)
		}
		res, err := r.hand(b, args, args.ResolveDir, nil)
		if err == nil && len(res.Errors) == 0 {
			// An import of ./x.js that found x.ts would find x.js
			// once there is one.
			if _, err := os.Lstat(target); errors.Is(err, fs.ErrNotExist) {
				r.in.absent(realish(target))
			}
		}
		return res, err
	case strings.Contains(spec, ":"):
		return fail("%q: only relative imports and packages in the project's node_modules resolve", spec)
	}
	pkg := packageName(spec)
	if builtins[pkg] {
		return fail("%q is a node built-in, and those are not available: a config can only compute and import modules from its project", spec)
	}
	if pkg == "" {
		return fail("%q is not a package name", spec)
	}
	dir := filepath.Join(r.p.Root, "node_modules", filepath.FromSlash(pkg))
	if pkg == tspkg.Name {
		// The project's own copy, linked or installed, takes precedence;
		// one at the name that leads nowhere is an error below, not a
		// reason to fall back.
		if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
			r.in.absent(dir)
			return resolveEmbedded(spec)
		}
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return fail("package %q is not installed in the project (no %s)", pkg, dir)
	}
	if !r.admitted(real) {
		return fail("package %q leads outside the project and the packages it links", pkg)
	}
	if err := r.hasExports(filepath.Join(real, "package.json")); err != nil {
		return fail("package %q: %v", pkg, err)
	}
	// Resolve from the project's root so that the package found is the
	// project's own, never one in a node_modules above it or nested below
	// an importing package.
	return r.hand(b, args, r.p.Root, &real)
}

// hand passes the resolution back to esbuild and checks where it led.
func (r *resolver) hand(b api.PluginBuild, args api.OnResolveArgs, dir string, under *string) (api.OnResolveResult, error) {
	res := b.Resolve(args.Path, api.ResolveOptions{
		Importer:   args.Importer,
		Namespace:  "file",
		ResolveDir: dir,
		Kind:       args.Kind,
		PluginData: reentry{},
		With:       args.With,
	})
	if len(res.Errors) > 0 {
		msgs := make([]api.Message, len(res.Errors))
		for i, m := range res.Errors {
			msgs[i] = api.Message{Text: m.Text, Notes: m.Notes}
		}
		return api.OnResolveResult{Errors: msgs}, nil
	}
	if res.External || res.Path == "" {
		return fail("%q doesn't resolve to a file", args.Path)
	}
	real, err := filepath.EvalSymlinks(res.Path)
	if err != nil {
		return fail("%q: %v", args.Path, err)
	}
	if under != nil && !project.Within(real, *under) {
		return fail("%q leads outside its package", args.Path)
	}
	if !r.admitted(real) {
		return r.outside(args.Path)
	}
	return api.OnResolveResult{Path: real, Namespace: namespace}, nil
}

func (r *resolver) noExtension(spec string) (api.OnResolveResult, error) {
	return fail("%q names no extension: a relative import names its file, such as %q", spec, spec+".ts")
}

func (r *resolver) outside(spec string) (api.OnResolveResult, error) {
	return fail("%q leads outside the project (%s): a config imports only from its project and the packages its node_modules links", spec, r.p.Root)
}

// resolveEmbedded resolves a bare import of @zap-go/zap, or of one of its
// subpaths, to the copy zap-eval carries, through its exports.
func resolveEmbedded(spec string) (api.OnResolveResult, error) {
	sub := "." + strings.TrimPrefix(spec, tspkg.Name)
	file, err := tspkg.Resolve(sub, conditions)
	if errors.Is(err, tspkg.ErrNotExported) {
		return fail("%q is not exported by %s (the copy zap-eval carries; the project's node_modules has none)", spec, tspkg.Name)
	}
	if err != nil {
		return fail("%q: %v", spec, err)
	}
	return api.OnResolveResult{Path: tspkg.Name + "/" + file, Namespace: embedded}, nil
}

// resolveEmbeddedRelative resolves a relative import made by a module of
// the embedded @zap-go/zap, inside that package.
func resolveEmbeddedRelative(importer, spec string) (api.OnResolveResult, error) {
	if strings.HasPrefix(spec, "/") {
		return fail("%q: a module of %s imports inside the package", spec, tspkg.Name)
	}
	from := path.Dir(strings.TrimPrefix(importer, tspkg.Name+"/"))
	file := path.Join(from, spec)
	if file == ".." || strings.HasPrefix(file, "../") {
		return fail("%q leads outside %s", spec, tspkg.Name)
	}
	if fi, err := fs.Stat(tspkg.FS(), file); err != nil || fi.IsDir() {
		return fail("%q is not a file of %s", spec, tspkg.Name)
	}
	return api.OnResolveResult{Path: tspkg.Name + "/" + file, Namespace: embedded}, nil
}

// realish resolves the links of p, or of its deepest ancestor that exists
// (a TypeScript import may name a .js whose file is the .ts beside it).
func realish(p string) string {
	rest := ""
	for {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(p, rest)
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// admitted reports whether the real path p is in the project or a package
// it links.
func (r *resolver) admitted(p string) bool {
	if project.Within(p, r.p.Root) {
		return true
	}
	for _, pkg := range r.p.Packages {
		if project.Within(p, pkg) {
			return true
		}
	}
	return false
}

var loaders = map[string]api.Loader{
	".ts":   api.LoaderTS,
	".mts":  api.LoaderTS,
	".cts":  api.LoaderTS,
	".js":   api.LoaderJS,
	".mjs":  api.LoaderJS,
	".cjs":  api.LoaderJS,
	".json": api.LoaderJSON,
}

// sourceMapComment matches a sourceMappingURL comment, line or block.
var sourceMapComment = regexp.MustCompile(`(?m)(//[#@][ \t]*sourceMappingURL=[^\r\n]*|/\*[#@][ \t]*sourceMappingURL=[^*]*\*/)`)

func (r *resolver) load(args api.OnLoadArgs) (api.OnLoadResult, error) {
	r.mu.Lock()
	res, ok := r.loaded[args.Path]
	r.mu.Unlock()
	if ok {
		return res, nil
	}
	res, err := r.read(args)
	if err == nil && len(res.Errors) == 0 {
		r.mu.Lock()
		if r.loaded == nil {
			r.loaded = map[string]api.OnLoadResult{}
		}
		r.loaded[args.Path] = res
		r.mu.Unlock()
	}
	return res, err
}

// read loads a file of the project or a package it links.
func (r *resolver) read(args api.OnLoadArgs) (api.OnLoadResult, error) {
	loader, ok := loaders[filepath.Ext(args.Path)]
	if !ok {
		return api.OnLoadResult{Errors: []api.Message{{Text: fmt.Sprintf("%s: a config imports .ts, .mts, .js, .mjs and .json files, not %q", rel(r.p.Root, args.Path), filepath.Ext(args.Path))}}}, nil
	}
	fi, err := os.Stat(args.Path)
	if err != nil {
		return api.OnLoadResult{}, err
	}
	if !fi.Mode().IsRegular() {
		return api.OnLoadResult{Errors: []api.Message{{Text: fmt.Sprintf("%s is not a regular file", rel(r.p.Root, args.Path))}}}, nil
	}
	if fi.Size() > MaxModule {
		return api.OnLoadResult{Errors: []api.Message{{Text: fmt.Sprintf("%s is %d bytes, more than a module may be (%d)", rel(r.p.Root, args.Path), fi.Size(), MaxModule)}}}, nil
	}
	data, err := os.ReadFile(args.Path)
	if err != nil {
		return api.OnLoadResult{}, err
	}
	if msg := invalidUTF8(data); msg != "" {
		return api.OnLoadResult{Errors: []api.Message{{Text: rel(r.p.Root, args.Path) + ":" + msg}}}, nil
	}
	r.in.read(args.Path, data)
	if root := r.rootOf(args.Path); root != "" {
		r.in.packageJSONs(filepath.Dir(args.Path), root)
	}
	src := sourceMapComment.ReplaceAllString(string(data), "")
	return api.OnLoadResult{Contents: &src, ResolveDir: filepath.Dir(args.Path), Loader: loader}, nil
}

// invalidUTF8 says where data first stops being UTF-8 ("LINE:COLUMN: ..."),
// or "" when it is UTF-8 throughout. esbuild would read each bad byte as
// U+FFFD, and a path or name written there would reach the target changed.
func invalidUTF8(data []byte) string {
	if utf8.Valid(data) {
		return ""
	}
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			return fmt.Sprintf("%d:%d: byte 0x%02X is not UTF-8: a config's files are UTF-8 text (write other bytes as escapes, such as \\u00e9)", line, col, data[i])
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		i += size
	}
	return ""
}

// loadEmbedded loads a file of the embedded @zap-go/zap.
func loadEmbedded(args api.OnLoadArgs) (api.OnLoadResult, error) {
	file := strings.TrimPrefix(args.Path, tspkg.Name+"/")
	loader, ok := loaders[path.Ext(file)]
	if !ok {
		return api.OnLoadResult{Errors: []api.Message{{Text: fmt.Sprintf("%s: a config imports .ts, .mts, .js, .mjs and .json files, not %q", args.Path, path.Ext(file))}}}, nil
	}
	data, err := fs.ReadFile(tspkg.FS(), file)
	if err != nil {
		return api.OnLoadResult{}, err
	}
	src := sourceMapComment.ReplaceAllString(string(data), "")
	return api.OnLoadResult{Contents: &src, Loader: loader}, nil
}

// builtins are the names of Node's built-in modules, which a bare import
// would otherwise look for in node_modules.
var builtins = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`assert async_hooks buffer child_process cluster console constants crypto
		dgram diagnostics_channel dns domain events fs http http2 https inspector module net os
		path perf_hooks process punycode querystring readline repl stream string_decoder sys
		timers tls trace_events tty url util v8 vm wasi worker_threads zlib`) {
		builtins[n] = true
	}
}

// packageName is the package part of a bare import: "a" of "a/b", "@s/a"
// of "@s/a/b".
func packageName(spec string) string {
	parts := strings.Split(spec, "/")
	n := 1
	if strings.HasPrefix(spec, "@") {
		n = 2
	}
	if len(parts) < n {
		return ""
	}
	for _, p := range parts[:n] {
		if p == "" || p == "." || p == ".." {
			return ""
		}
	}
	return strings.Join(parts[:n], "/")
}

// hasExports requires a package.json with "exports".
func (r *resolver) hasExports(p string) error {
	data, err := os.ReadFile(p)
	if err == nil {
		r.in.read(p, data)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return errors.New("no package.json")
	}
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("can't read its package.json: %w", err)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil || obj == nil {
		return errors.New("package.json is not a JSON object")
	}
	if _, ok := obj["exports"]; !ok {
		return errors.New(`package.json has no "exports": a package is imported through its exports, never its main`)
	}
	return nil
}

func rel(root, p string) string {
	if r, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

// failure turns esbuild's messages into an Error.
func (r *resolver) failure(msgs []api.Message) error {
	e := &Error{}
	seenHint := map[string]bool{}
	for _, m := range msgs {
		text := m.Text
		if loc := m.Location; loc != nil {
			text = fmt.Sprintf("%s:%d:%d: %s", r.file(loc.File), loc.Line, loc.Column+1, text)
		}
		e.Messages = append(e.Messages, text)
		for _, n := range m.Notes {
			// esbuild's advice to mark a path external doesn't apply: a
			// config's imports must all resolve.
			if n.Text == "" || strings.Contains(n.Text, "external") {
				continue
			}
			note := n.Text
			if loc := n.Location; loc != nil {
				note = fmt.Sprintf("%s:%d:%d: %s", r.file(loc.File), loc.Line, loc.Column+1, note)
			}
			e.Messages = append(e.Messages, "note: "+note)
		}
		if h := hintFor(m); h != "" && !seenHint[h] {
			seenHint[h] = true
			e.Hints = append(e.Hints, h)
		}
	}
	return e
}

// file names a file of esbuild's message relative to the project.
func (r *resolver) file(name string) string {
	if rest, ok := strings.CutPrefix(name, namespace+":"); ok {
		return rel(r.p.Root, rest)
	}
	if rest, ok := strings.CutPrefix(name, embedded+":"); ok {
		return rest
	}
	return name
}

func hintFor(m api.Message) string {
	switch {
	case strings.Contains(m.Text, "Top-level await"):
		return "make the default export an async function and await inside it"
	case m.ID == "direct-eval":
		return "eval is not available in a config: write the code out"
	}
	return ""
}

// relativeMap rewrites the source map's sources to paths relative to the
// project, so positions read zap.ts:4:3.
func relativeMap(raw []byte, root string) ([]byte, error) {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("source map: %w", err)
	}
	if srcs, ok := m["sources"].([]any); ok {
		for i, s := range srcs {
			str, _ := s.(string)
			if rest, ok := strings.CutPrefix(str, namespace+":"); ok {
				srcs[i] = rel(root, rest)
			} else if rest, ok := strings.CutPrefix(str, embedded+":"); ok {
				srcs[i] = rest
			}
		}
	}
	return json.Marshal(m)
}
