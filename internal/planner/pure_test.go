package planner

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoIO holds the planner to being a pure function: none of its files
// imports a package that reaches the filesystem, the environment, the clock,
// the network or another process.
func TestNoIO(t *testing.T) {
	forbidden := map[string]bool{
		"os": true, "os/exec": true, "os/user": true, "io/fs": true, "io/ioutil": true,
		"time": true, "net": true, "net/http": true, "syscall": true, "math/rand": true,
		"math/rand/v2": true, "crypto/rand": true, "runtime": true, "unsafe": true, "embed": true,
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		n++
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if forbidden[path] {
				t.Errorf("%s imports %s: the planner must not do I/O", name, path)
			}
		}
	}
	if n == 0 {
		t.Fatal("no package files found")
	}
}
