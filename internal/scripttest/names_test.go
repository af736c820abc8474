package scripttest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// TestScriptsOpenWithWhatTheyCheck reads every testscript script in the
// repository (each package's testdata/script/*.txtar) and wants its first
// line to be a comment saying what the script checks: a skip guard or a
// command first, the words "what it checks" standing in for it, or an
// opening that names where the script came from (an issue, a walk-through,
// a doc page) instead of a behaviour, is reported.
func TestScriptsOpenWithWhatTheyCheck(t *testing.T) {
	root := repoRoot(t)
	scripts := scriptFiles(t, root)
	if len(scripts) == 0 {
		t.Fatalf("no testdata/script/*.txtar found under %s", root)
	}
	for _, rel := range scripts {
		data, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(data), "\n")
		switch {
		case !strings.HasPrefix(first, "# ") || len(strings.Fields(first)) < 4:
			t.Errorf("%s opens with %q, not a # line saying what it checks", rel, first)
		case strings.HasPrefix(strings.ToLower(first), "# what it checks"):
			t.Errorf("%s opens with %q: say what it checks, not that it does", rel, first)
		case originName(first) != "":
			t.Errorf("%s opens with %q, naming %s: say what it checks, not where it came from", rel, first, originName(first))
		}
	}
	t.Logf("%d scripts read", len(scripts))
}

// TestNamesSayWhatTheyCheck reads the names of every test file, every
// Test, Fuzz, Benchmark and Example function, every script and every fuzz
// corpus directory in the repository, and reports one named after where it
// came from rather than what it checks: an issue, a walk-through, a page, an
// item or a finding by number (walk7_openrc, kinds7_test.go, TestIssue12),
// or the getting-started page. A fuzz corpus directory must also be named
// after a Fuzz function of its package, which go test reads it for.
func TestNamesSayWhatTheyCheck(t *testing.T) {
	root := repoRoot(t)
	type name struct{ where, name string }
	var names []name
	fuzzFuncs := map[string]bool{} // package dir + "/" + Fuzz function
	corpora := map[string]string{} // package dir + "/" + corpus directory -> a file in it
	walkRepo(t, root, func(rel string) {
		switch {
		case strings.HasSuffix(rel, "_test.go"):
			names = append(names, name{rel, strings.TrimSuffix(path.Base(rel), "_test.go")})
			f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root, rel), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, fn := range testFuncs(f.Decls) {
				names = append(names, name{rel + ": func " + fn, fn})
				if strings.HasPrefix(fn, "Fuzz") {
					fuzzFuncs[path.Dir(rel)+"/"+fn] = true
				}
			}
		case isScript(rel):
			names = append(names, name{rel, strings.TrimSuffix(path.Base(rel), ".txtar")})
		}
		if pkg, corpus, ok := strings.Cut(rel, "/testdata/fuzz/"); ok {
			dir, _, _ := strings.Cut(corpus, "/")
			if _, seen := corpora[pkg+"/"+dir]; !seen {
				corpora[pkg+"/"+dir] = rel
				names = append(names, name{pkg + "/testdata/fuzz/" + dir, dir})
			}
		}
	})
	for _, n := range names {
		if why := originName(n.name); why != "" {
			t.Errorf("%s: %q is named after %s: name it for what it checks", n.where, n.name, why)
		}
	}
	for dir, file := range corpora {
		if !fuzzFuncs[dir] {
			t.Errorf("%s: no function %s in its package's tests reads this corpus", file, path.Base(dir))
		}
	}
	t.Logf("%d names read, %d fuzz corpora", len(names), len(corpora))
}

// originWords name where a test came from when a number follows them:
// issue 12, walk 7, page 3, item 6, finding 4, kinds 7.
var originWords = map[string]bool{
	"issue": true, "issues": true, "bug": true, "walk": true, "walks": true,
	"page": true, "item": true, "finding": true, "section": true, "kinds": true,
}

// originName says what a name, or a script's opening line, is named after
// when that is its origin rather than a behaviour, or "" when it isn't.
func originName(s string) string {
	words := nameWords(s)
	for i, w := range words {
		if originWords[w] && i+1 < len(words) && isNumber(words[i+1]) {
			return w + " " + words[i+1]
		}
		if w == "getting" && i+1 < len(words) && words[i+1] == "started" {
			return "the getting-started page"
		}
		if w == "walkthrough" {
			return "a walk-through"
		}
	}
	return ""
}

// nameWords splits a snake_case, kebab-case or CamelCase name, or a line of
// prose, into lower-case words, digits apart from letters: "TestKinds7Change"
// gives test, kinds, 7, change; "walk7_openrc" gives walk, 7, openrc.
func nameWords(s string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
			continue
		case len(cur) > 0:
			prev := cur[len(cur)-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsDigit(r) != unicode.IsDigit(prev) ||
				unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsUpper(prev) && nextLower) {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return words
}

func isNumber(w string) bool {
	for _, r := range w {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return w != ""
}

// testFuncs lists the functions go test runs among a file's declarations:
// Test, Fuzz, Benchmark and Example functions, methods aside.
func testFuncs(decls []ast.Decl) []string {
	var out []string
	for _, d := range decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv != nil {
			continue
		}
		for _, prefix := range []string{"Test", "Fuzz", "Benchmark", "Example"} {
			if strings.HasPrefix(fn.Name.Name, prefix) {
				out = append(out, fn.Name.Name)
				break
			}
		}
	}
	return out
}

// repoRoot is the directory above the test's holding go.mod.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = up
	}
}

// walkRepo calls fn for every file under root, relative to it, passing over
// hidden directories, node_modules and the built binaries in bin.
func walkRepo(t *testing.T, root string, fn func(rel string)) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || rel == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		fn(filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// isScript says whether a file is one of the scripts testscript runs: a
// .txtar file in a testdata/script directory.
func isScript(rel string) bool {
	return strings.HasSuffix(rel, ".txtar") && strings.HasSuffix(path.Dir(rel), "testdata/script")
}

// scriptFiles lists the scripts testscript runs, relative to root.
func scriptFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	walkRepo(t, root, func(rel string) {
		if isScript(rel) {
			out = append(out, rel)
		}
	})
	return out
}
