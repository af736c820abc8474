package scripttest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the longest a function outside the tests may be, from its
// func keyword to its closing brace (HOUSE_STYLE: one that needs more does
// more than one thing).
const maxFuncLines = 100

// TestFunctionsAtMost100Lines parses every .go file of the module that
// isn't a test file or under testdata, and reports each function, method
// and function literal longer than maxFuncLines lines. A literal is counted
// on its own, and within the function that holds it.
func TestFunctionsAtMost100Lines(t *testing.T) {
	root := repoRoot(t)
	files := 0
	walkRepo(t, root, func(rel string) {
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") ||
			strings.HasPrefix(rel, "testdata/") || strings.Contains(rel, "/testdata/") {
			return
		}
		files++
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, filepath.Join(root, rel), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			var name string
			switch fn := n.(type) {
			case *ast.FuncDecl:
				name = fn.Name.Name
				if fn.Recv != nil && len(fn.Recv.List) == 1 {
					name = recvName(fn.Recv.List[0].Type) + "." + name
				}
				if fn.Body == nil {
					return false
				}
			case *ast.FuncLit:
				name = "a function literal"
			default:
				return true
			}
			start, end := fset.Position(n.Pos()), fset.Position(n.End())
			if lines := end.Line - start.Line + 1; lines > maxFuncLines {
				t.Errorf("%s:%d: %s is %d lines long, over %d", rel, start.Line, name, lines, maxFuncLines)
			}
			return true
		})
	})
	if files == 0 {
		t.Fatalf("no .go files found under %s", root)
	}
	t.Logf("%d files read", files)
}

// recvName is the type a method's receiver names, without its pointer or
// type parameters.
func recvName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return "?"
		}
	}
}
