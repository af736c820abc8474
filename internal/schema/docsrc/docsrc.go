// Package docsrc reads the schema's words from their one source, the doc
// comments of pkg/declaration's structs (and of any struct a config writes):
// each struct's, each of its fields' and each constant's that names a value
// of a field read by its type (on=). It keeps a comment's first paragraph,
// what a user reads; later paragraphs are for Go's readers.
//
// Generate writes them as internal/schema/docs.json, which the schema
// package embeds (schema.FieldDoc and the others): ts/types.ts's comments
// (internal/schema/tsgen) and zap doc read them there, so a binary with no
// source beside it says what the types say. A test fails when docs.json
// isn't what Generate makes, and when a field has no doc.
package docsrc

import (
	"bufio"
	"bytes"
	"encoding/json"
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

	"github.com/zap-go/zap/internal/schema"
)

// Root is the module's root: the first directory holding go.mod at or
// above the working directory.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := modulePath(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
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

// comments are the doc comments of one Go package, by schema key (within
// the package: Type, Type.Field, Type=value).
type comments map[string]string

// Read returns the first paragraph of the doc of each struct the schema
// describes (schema.All), of each of its fields and of each value of a
// field read by type, keyed as schema.FieldDoc and the others look them up.
// A struct, field or value with no doc is left out.
func Read(root string) (map[string]string, error) {
	module, err := modulePath(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, err
	}
	pkgs := map[string]comments{}
	of := func(t reflect.Type) (comments, error) {
		if c, ok := pkgs[t.PkgPath()]; ok {
			return c, nil
		}
		rel, ok := strings.CutPrefix(t.PkgPath(), module+"/")
		if !ok {
			return nil, fmt.Errorf("%v: package %s is outside module %s", t, t.PkgPath(), module)
		}
		c, err := parse(filepath.Join(root, filepath.FromSlash(rel)))
		pkgs[t.PkgPath()] = c
		return c, err
	}
	out := map[string]string{}
	put := func(key, doc string) {
		if p := firstParagraph(doc); p != "" {
			out[key] = p
		}
	}
	for _, s := range schema.All() {
		c, err := of(s.Type)
		if err != nil {
			return nil, err
		}
		name := s.Type.Name()
		put(schema.TypeKey(s.Type), c[name])
		for _, f := range s.Fields {
			put(schema.FieldKey(s.Type, f.GoName), c[name+"."+f.GoName])
		}
		if d := s.Discriminator(); d != nil {
			dc, err := of(d.Type)
			if err != nil {
				return nil, err
			}
			for _, v := range d.Enum {
				put(schema.ConstKey(d.Type, v), dc[d.Type.Name()+"="+v])
			}
		}
	}
	return out, nil
}

// Generate is docs.json: Read's map as indented JSON, its keys sorted.
func Generate(root string) ([]byte, error) {
	m, err := Read(root)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "\t")
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// firstParagraph is a doc comment's first paragraph, its lines as written.
func firstParagraph(doc string) string {
	para, _, _ := strings.Cut(strings.TrimSpace(doc), "\n\n")
	return para
}

// parse reads the doc comments of the package in dir, tests aside.
func parse(dir string) (comments, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := comments{}
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

func (c comments) gen(g *ast.GenDecl) {
	for _, spec := range g.Specs {
		switch s := spec.(type) {
		case *ast.TypeSpec:
			doc := s.Doc
			if doc == nil && len(g.Specs) == 1 {
				doc = g.Doc
			}
			c[s.Name.Name] = doc.Text()
			if st, ok := s.Type.(*ast.StructType); ok {
				for _, f := range st.Fields.List {
					for _, n := range f.Names {
						c[s.Name.Name+"."+n.Name] = f.Doc.Text()
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
				c[typ.Name+"="+v] = s.Doc.Text()
			}
		}
	}
}
