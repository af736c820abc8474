package tsgen

import (
	"bufio"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
)

// docs are the doc comments of one Go package's declarations, read from
// its source: each type's, each struct field's (by Type.Field) and each
// constant's (by its type and value, Type=value).
type docs map[string]string

// sources reads doc comments from the Go source of the packages the schema's
// structs live in, found by their import paths under the module's root.
type sources struct {
	root, module string
	pkgs         map[string]docs
}

// newSources finds the module's root above the working directory.
func newSources() (*sources, error) {
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	for {
		if mod, err := modulePath(filepath.Join(dir, "go.mod")); err == nil {
			return &sources{root: dir, module: mod, pkgs: map[string]docs{}}, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil, errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// modulePath reads the module line of a go.mod.
func modulePath(file string) (string, error) {
	f, err := os.Open(file)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	return "", fmt.Errorf("%s: no module line", file)
}

// of returns the doc comments of t's package.
func (s *sources) of(t reflect.Type) (docs, error) {
	pkg := t.PkgPath()
	if d, ok := s.pkgs[pkg]; ok {
		return d, nil
	}
	rel, ok := strings.CutPrefix(pkg, s.module)
	if !ok {
		return nil, fmt.Errorf("%v: package %s is outside module %s", t, pkg, s.module)
	}
	d, err := parseDocs(filepath.Join(s.root, filepath.FromSlash(strings.TrimPrefix(rel, "/"))))
	if err != nil {
		return nil, err
	}
	s.pkgs[pkg] = d
	return d, nil
}

// parseDocs reads the doc comments of the package in dir, tests aside.
func parseDocs(dir string) (docs, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := docs{}
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, decl := range f.Decls {
			if g, ok := decl.(*ast.GenDecl); ok {
				out.gen(g)
			}
		}
	}
	return out, nil
}

func (d docs) gen(g *ast.GenDecl) {
	for _, spec := range g.Specs {
		switch s := spec.(type) {
		case *ast.TypeSpec:
			doc := s.Doc
			if doc == nil && len(g.Specs) == 1 {
				doc = g.Doc
			}
			d[s.Name.Name] = doc.Text()
			if st, ok := s.Type.(*ast.StructType); ok {
				for _, f := range st.Fields.List {
					for _, n := range f.Names {
						d[s.Name.Name+"."+n.Name] = f.Doc.Text()
					}
				}
			}
		case *ast.ValueSpec:
			typ, ok := s.Type.(*ast.Ident)
			if g.Tok != token.CONST || !ok || len(s.Values) != 1 {
				continue
			}
			lit, ok := s.Values[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				continue
			}
			if v, err := strconv.Unquote(lit.Value); err == nil {
				d[typ.Name+"="+v] = s.Doc.Text()
			}
		}
	}
}

// firstParagraph is a doc comment's first paragraph, its lines as written:
// what the TypeScript types say. Later paragraphs are for Go's readers.
func firstParagraph(doc string) []string {
	para, _, _ := strings.Cut(strings.TrimSpace(doc), "\n\n")
	if para == "" {
		return nil
	}
	return strings.Split(para, "\n")
}

// described is a type's doc as the TypeScript types say it: its first
// paragraph, without the "Name is " Go begins it with.
func described(name, doc string) []string {
	lines := firstParagraph(doc)
	if len(lines) == 0 {
		return nil
	}
	for _, verb := range []string{" is ", " are "} {
		if rest, ok := strings.CutPrefix(lines[0], name+verb); ok && rest != "" {
			lines[0] = strings.ToUpper(rest[:1]) + rest[1:]
			return reflow(lines)
		}
	}
	return lines
}
