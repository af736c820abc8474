package testhook

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestUntaggedBuildSaysNo builds a program that prints On() twice, as make
// build builds the binaries (no zaptest tag) and as make testbin does
// (with it), and runs both with every hook variable set, each one
// TestEveryHookAsksOn's scan finds read: only the tagged one says hooks
// may be honoured. With that scan (every read of a hook asks On()), an
// untagged build ignores every hook.
func TestUntaggedBuildSaysNo(t *testing.T) {
	hooks, _ := scanHooks(t)
	dir := t.TempDir()
	main := "package main\n\nimport (\n\t\"fmt\"\n\n\t\"github.com/zap-go/zap/internal/testhook\"\n)\n\nfunc main() { fmt.Print(testhook.On()) }\n"
	src := filepath.Join(moduleRoot(t), "internal", "testhook", "testdata", "printon")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(filepath.Join(moduleRoot(t), "internal", "testhook", "testdata")) })
	if err := os.WriteFile(filepath.Join(src, "main.go"), []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tags, want string
	}{{"", "false"}, {"zaptest", "true"}} {
		bin := filepath.Join(dir, "printon"+c.tags)
		build := exec.Command("go", "build", "-tags", c.tags, "-trimpath", "-buildvcs=false", "-o", bin, "./internal/testhook/testdata/printon")
		build.Dir = moduleRoot(t)
		build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build -tags %q: %v\n%s", c.tags, err, out)
		}
		run := exec.Command(bin)
		run.Env = os.Environ()
		for _, h := range hooks {
			run.Env = append(run.Env, h+"=1")
		}
		out, err := run.Output()
		if err != nil || string(out) != c.want {
			t.Errorf("built with tags %q: On() = %q (%v), want %s", c.tags, out, err, c.want)
		}
	}
}

// TestEveryHookAsksOn reads every non-test Go file outside the test
// harness and wants each function that reads a test hook's variable
// (ZAP_TEST_*, ZAPEVAL_TEST_*, GOCOVERDIR) to call testhook.On(), so no
// hook reaches a binary built as users get it.
func TestEveryHookAsksOn(t *testing.T) {
	hooks, unasked := scanHooks(t)
	for _, u := range unasked {
		t.Errorf("%s without asking testhook.On()", u)
	}
	if len(hooks) < 5 {
		t.Fatalf("only %d hook variables found read (%v): the scan misses them", len(hooks), hooks)
	}
}

// scanHooks reads every non-test Go file outside the test harness and
// returns the hook variables read there, sorted, and each function that
// reads one without calling testhook.On().
func scanHooks(t *testing.T) (hooks, unasked []string) {
	t.Helper()
	root := moduleRoot(t)
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			switch {
			case d.Name() == "testdata" || strings.HasPrefix(d.Name(), "."), rel == "internal/scripttest", rel == "internal/lab", rel == "internal/writetest", rel == "internal/testhook":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		consts := hookConsts(f)
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			reads, asks := hookReads(fn.Body, consts)
			for _, h := range reads {
				seen[h] = true
			}
			if len(reads) > 0 && !asks {
				unasked = append(unasked, fmt.Sprintf("%s: %s reads %s", rel, fn.Name.Name, strings.Join(reads, ", ")))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for h := range seen {
		hooks = append(hooks, h)
	}
	sort.Strings(hooks)
	return hooks, unasked
}

// isHook reports whether name is a test hook's variable.
func isHook(name string) bool {
	return strings.HasPrefix(name, "ZAP_TEST_") || strings.HasPrefix(name, "ZAPEVAL_TEST_") || name == "GOCOVERDIR"
}

// hookConsts are the file's constants whose value names a hook variable.
func hookConsts(f *ast.File) map[string]string {
	m := map[string]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok {
			for i, v := range vs.Values {
				if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING && i < len(vs.Names) {
					if s, err := strconv.Unquote(lit.Value); err == nil && isHook(s) {
						m[vs.Names[i].Name] = s
					}
				}
			}
		}
		return true
	})
	return m
}

// hookReads lists the hook variables body reads with os.Getenv or
// os.LookupEnv, and whether it calls testhook.On().
func hookReads(body *ast.BlockStmt, consts map[string]string) (hooks []string, asks bool) {
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		pkg, _ := sel.X.(*ast.Ident)
		switch {
		case pkg != nil && pkg.Name == "testhook" && sel.Sel.Name == "On":
			asks = true
		case pkg != nil && pkg.Name == "os" && (sel.Sel.Name == "Getenv" || sel.Sel.Name == "LookupEnv") && len(call.Args) == 1:
			switch a := call.Args[0].(type) {
			case *ast.BasicLit:
				if s, err := strconv.Unquote(a.Value); err == nil && isHook(s) {
					hooks = append(hooks, s)
				}
			case *ast.Ident:
				if s, ok := consts[a.Name]; ok {
					hooks = append(hooks, s)
				}
			}
		}
		return true
	})
	return hooks, asks
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(filepath.Dir(dir))
}
