package schema

import (
	_ "embed"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
)

// docs.json is the first paragraph of the doc comment of each struct a
// config writes, of each of its fields, and of each value of a field read
// by type: generated from the Go source (internal/schema/docsrc), so the
// comments in pkg/declaration are the one place these words are written.
// ts/types.ts's comments and zap doc read them here.
//
//go:generate go run ./docsrc/gen docs.json
//go:embed docs.json
var docsJSON []byte

var docs = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	if err := json.Unmarshal(docsJSON, &m); err != nil {
		panic("schema: docs.json: " + err.Error())
	}
	return m
})

// module is the prefix a key leaves out of a package's path.
const module = "github.com/zap-go/zap/"

// TypeKey is the key of the doc of the struct t: its package (within the
// module) and name, pkg/declaration.File.
func TypeKey(t reflect.Type) string {
	return strings.TrimPrefix(t.PkgPath(), module) + "." + t.Name()
}

// FieldKey is the key of the doc of the field of t named goName in Go.
func FieldKey(t reflect.Type, goName string) string { return TypeKey(t) + "." + goName }

// ConstKey is the key of the doc of the constant of type t whose value is v.
func ConstKey(t reflect.Type, v string) string { return TypeKey(t) + "=" + v }

// TypeDoc is the first paragraph of t's doc comment, its lines as written,
// or "".
func TypeDoc(t reflect.Type) string { return docs()[TypeKey(t)] }

// FieldDoc is the first paragraph of the doc comment of f, a field of s.
func (s *Struct) FieldDoc(f *Field) string { return docs()[FieldKey(s.Type, f.GoName)] }

// ConstDoc is the first paragraph of the doc of the constant of type t
// (a field read by type's) whose value is v.
func ConstDoc(t reflect.Type, v string) string { return docs()[ConstKey(t, v)] }
