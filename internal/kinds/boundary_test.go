package kinds

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const declarationPath = "github.com/zap-go/zap/pkg/declaration"

// TestBodiesStayInTheirKinds walks the module's Go files (tests aside:
// a test builds the resources it needs) and fails where a package outside
// pkg/declaration and internal/kinds names a concrete kind's body
// (declaration.File, ...): every kind is a folder now, and what crosses
// kinds is read through the body's methods on the resource. The bodies
// are the types listed in pkg/declaration's bodies. It reads files by
// go/parser alone: a body is named as a selector on the name the file
// imports pkg/declaration by.
func TestBodiesStayInTheirKinds(t *testing.T) {
	root := moduleRoot(t)
	bodies := bodyTypes(t, filepath.Join(root, "pkg", "declaration", "kind.go"))
	if len(bodies) < 15 {
		t.Fatalf("found %d bodies in pkg/declaration/kind.go, want the 15 kinds at least", len(bodies))
	}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if base := d.Name(); rel != "." && (strings.HasPrefix(base, ".") || base == "testdata" || base == "bin" || base == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || inKinds(rel) {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, name := range namedBodies(f, bodies) {
			t.Errorf("%s names declaration.%s: a kind's body is read through the Body's methods, or in its kind's folder (internal/kinds/...)", rel, name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// inKinds reports whether the file at rel is one of those that may name a
// body: pkg/declaration's own, and the kinds'.
func inKinds(rel string) bool {
	return strings.HasPrefix(rel, "pkg/declaration/") && !strings.Contains(strings.TrimPrefix(rel, "pkg/declaration/"), "/") ||
		strings.HasPrefix(rel, "internal/kinds/")
}

// namedBodies lists the bodies f names as selectors on its import of
// pkg/declaration.
func namedBodies(f *ast.File, bodies map[string]bool) []string {
	local := ""
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == declarationPath {
			local = "declaration"
			if imp.Name != nil {
				local = imp.Name.Name
			}
		}
	}
	if local == "" {
		return nil
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		if s, ok := n.(*ast.SelectorExpr); ok {
			if x, ok := s.X.(*ast.Ident); ok && x.Name == local && bodies[s.Sel.Name] {
				out = append(out, s.Sel.Name)
			}
		}
		return true
	})
	return out
}

// bodyTypes returns the types bodies lists in kind.go: each bodyOf[T]
// names one.
func bodyTypes(t *testing.T, path string) map[string]bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if ix, ok := n.(*ast.IndexExpr); ok {
			if fn, ok := ix.X.(*ast.Ident); ok && fn.Name == "bodyOf" {
				if typ, ok := ix.Index.(*ast.Ident); ok {
					out[typ.Name] = true
				}
			}
		}
		return true
	})
	return out
}

// moduleRoot is the folder of the go.mod above the test's.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = parent
	}
}
