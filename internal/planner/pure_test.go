package planner

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
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

// TestNoIOBelow holds everything the planner is built from to what TestNoIO
// holds the planner's own files to, through its whole dependency graph
// (go list -deps), so purity can't come in by the back door: a package the
// planner imports for a name must not import the filesystem, the network,
// another process, randomness or the clock.
//
// What is checked is every package in the graph outside the standard
// library (Zap's own, and a third party's): none imports an I/O package
// (ioPackage). The standard library is not walked, since fmt itself imports
// os (for Println, which the planner doesn't call) and so does nearly every
// package: what matters is that nothing we, or a dependency, wrote reaches
// for I/O. A failure names the chain of imports from the planner to the
// package that imports the forbidden one.
//
// time is the one I/O package a package in the graph may import, for
// durations only: a package outside the standard library that imports time
// may name time.Duration and its unit constants (timeUnits) and nothing
// else of it, which a go/ast walk of its files checks. That is a list of
// what is allowed rather than a search for time.Now, because time.Since,
// time.Until, time.Sleep, time.After, a Timer or Ticker and time.Local read
// the clock (or the zone files) as surely as Now does; a package the
// planner needs for more of time than a duration is doing what a function
// of the observations alone can't. (A method on a Duration value, such as
// d.Seconds(), is no selector on the package and passes, as it should.)
//
// The few imports that break the rule in a third party's package and are
// harmless to the planner are listed in allowed, each with its reason.
func TestNoIOBelow(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go tool to list the planner's dependencies with: %v", err)
	}
	cmd := exec.Command(goTool, "list", "-deps", "-json=ImportPath,Standard,Dir,GoFiles,Imports", ".")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, stderr.Bytes())
	}
	pkgs, err := decodePackages(out)
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	const self = "github.com/zap-go/zap/internal/planner"
	if pkgs[self] == nil {
		t.Fatalf("go list -deps doesn't list %s", self)
	}
	chain := importChains(pkgs, self)
	checked := 0
	for _, path := range slices.Sorted(maps.Keys(pkgs)) {
		p := pkgs[path]
		if p.Standard {
			continue
		}
		checked++
		for _, imp := range p.Imports {
			switch {
			case allowed[path+" -> "+imp] != "":
			case imp == "time":
				for _, use := range timeUses(t, p) {
					t.Errorf("%s imports time and uses %s, more of it than a duration: the planner must not read the clock", strings.Join(chain[path], " -> "), use)
				}
			case ioPackage(imp):
				t.Errorf("%s imports %s: the planner must not do I/O", strings.Join(chain[path], " -> "), imp)
			}
		}
	}
	if checked < 2 {
		t.Fatalf("go list -deps listed %d packages outside the standard library, the planner among them", checked)
	}
}

// allowed are the imports, "importer -> imported", that TestNoIOBelow lets
// pass though they name an I/O package, each with why it is harmless.
var allowed = map[string]string{
	"github.com/zeebo/blake3/internal/consts -> os": "plan.Hash's blake3 picks its SIMD code from the CPU and " +
		"the BLAKE3_* environment variables when it loads; the digest is the same whichever it picks",
	"github.com/klauspost/cpuid/v2 -> os": "cpuid exits only under its own -cpu.features flag, " +
		"which it registers only when its Flags is called, and nothing calls it",
}

// ioPackage reports whether path is a standard package whose purpose is
// I/O, or that reads the process's surroundings: the filesystem (os,
// path/filepath, io/ioutil), other processes and accounts (os/exec,
// os/user, os/signal), the system directly (syscall, golang.org/x/sys),
// the network (net and what's under it, but for the parsers net/url and
// net/netip), randomness, logging, plugins and the runtime's own knobs.
func ioPackage(path string) bool {
	switch path {
	case "os", "syscall", "io/ioutil", "path/filepath", "crypto/rand", "math/rand", "math/rand/v2",
		"log", "log/slog", "log/syslog", "plugin", "runtime/debug", "runtime/pprof", "runtime/trace", "net":
		return true
	case "net/url", "net/netip":
		return false
	}
	for _, prefix := range []string{"os/", "net/", "golang.org/x/sys/"} {
		if strings.HasPrefix(path, prefix) {
			return true
		}
	}
	return false
}

// timeUnits are the names of package time a package in the planner's
// graph may use: the Duration type and its units.
var timeUnits = map[string]bool{
	"Duration": true, "Nanosecond": true, "Microsecond": true, "Millisecond": true,
	"Second": true, "Minute": true, "Hour": true,
}

// timeUses lists, as file:line time.Name, each use in p's files of
// package time that isn't one of timeUnits (a dot import counts as one).
func timeUses(t *testing.T, p *listedPackage) []string {
	var uses []string
	for _, name := range p.GoFiles {
		path := filepath.Join(p.Dir, name)
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		local := ""
		for _, imp := range f.Imports {
			if imp.Path.Value != `"time"` {
				continue
			}
			local = "time"
			if imp.Name != nil {
				local = imp.Name.Name
			}
		}
		switch local {
		case "", "_":
			continue
		case ".":
			uses = append(uses, name+": a dot import of time")
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == local && !timeUnits[sel.Sel.Name] {
				uses = append(uses, fset.Position(sel.Pos()).String()+": time."+sel.Sel.Name)
			}
			return true
		})
	}
	return uses
}

// listedPackage is what TestNoIOBelow reads of go list -json.
type listedPackage struct {
	ImportPath string
	Standard   bool
	Dir        string
	GoFiles    []string
	Imports    []string
}

// decodePackages reads go list -json's stream of packages, by import path.
func decodePackages(out []byte) (map[string]*listedPackage, error) {
	pkgs := map[string]*listedPackage{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		err := dec.Decode(&p)
		if errors.Is(err, io.EOF) {
			return pkgs, nil
		}
		if err != nil {
			return nil, err
		}
		pkgs[p.ImportPath] = &p
	}
}

// importChains gives each package reachable from root one shortest chain
// of imports leading to it from root, both ends included.
func importChains(pkgs map[string]*listedPackage, root string) map[string][]string {
	chain := map[string][]string{root: {root}}
	queue := []string{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if pkgs[p] == nil {
			continue
		}
		for _, imp := range pkgs[p].Imports {
			if _, seen := chain[imp]; !seen {
				chain[imp] = append(slices.Clip(chain[p]), imp)
				queue = append(queue, imp)
			}
		}
	}
	return chain
}
