package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/zap-go/zap/internal/scripttest"
)

// example is one ```ts block of a page: a whole config.
type example struct {
	file string // the page, relative to the checkout
	line int    // the fence's line
	code string
	// dir is a directory of the checkout the example is evaluated in,
	// from the fence's dir=PATH: the project files it names are there.
	dir string
	// converge is the fence's converge: the example, a local target that
	// needs no root and no network, is also applied.
	converge bool
}

// envRef is a reference a config writes: zap.env('NAME').
var envRef = regexp.MustCompile(`zap\.env\('([A-Za-z_][A-Za-z0-9_]*)'\)`)

// fence opens a code block, perhaps indented under a list item: its
// indent, and its info string.
var fence = regexp.MustCompile("^([ \t]*)```(.*)$")

// docExamples reads the ts blocks of the markdown page path. A block
// fenced ```ts is a whole config an example test evaluates; ```ts
// dir=PATH evaluates it in a copy of PATH; ```ts converge also applies it
// (a local target needing no root and no network); ```ts fragment is part of one
// (an import, a call) and is left out, so a fragment can't hold a whole
// config (export default) the test would miss.
func docExamples(t *testing.T, root, path string) []example {
	t.Helper()
	f, err := os.Open(filepath.Join(root, path))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []example
	var cur *example
	var indent string
	fragment := false
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		l := sc.Text()
		m := fence.FindStringSubmatch(l)
		switch {
		case cur == nil && m != nil:
			info := strings.Fields(m[2])
			if len(info) == 0 || info[0] != "ts" {
				// Another language's block: skipped whole.
				cur, indent, fragment = &example{}, m[1], true
				cur.file = ""
				continue
			}
			cur, indent, fragment = &example{file: path, line: n}, m[1], false
			for _, opt := range info[1:] {
				switch {
				case opt == "fragment":
					fragment = true
				case opt == "converge":
					cur.converge = true
				case strings.HasPrefix(opt, "dir="):
					cur.dir = strings.TrimPrefix(opt, "dir=")
				default:
					t.Errorf("%s:%d: unknown ts block option %q (want fragment, converge or dir=PATH)", path, n, opt)
				}
			}
		case cur != nil && m != nil && strings.TrimSpace(m[2]) == "":
			if cur.file != "" {
				if fragment && strings.Contains(cur.code, "export default") {
					t.Errorf("%s:%d: a ts fragment holds a whole config: fence it ```ts so a test evaluates it", path, cur.line)
				}
				if !fragment {
					out = append(out, *cur)
				}
			}
			cur = nil
		case cur != nil:
			cur.code += strings.TrimPrefix(l, indent) + "\n"
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur != nil {
		t.Errorf("%s: a code block is never closed", path)
	}
	return out
}

// TestDocExamples evaluates every ts example of the user's pages (the
// top README and docs/, the generated reference in docs/kinds among them)
// as a config of its own: zap config validate must say ok, with no
// warning, as the unprivileged account when the tests run as root; one
// fenced converge is applied too, on this machine in the test's own home,
// and must read converged. An example that doesn't evaluate, would hold
// on its target, or doesn't converge, fails.
func TestDocExamples(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	pages := []string{"README.md"}
	err = filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel(root, p)
			pages = append(pages, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	count := 0
	for _, page := range pages {
		for _, ex := range docExamples(t, root, page) {
			count++
			name := strings.NewReplacer("/", "_", ".", "_").Replace(ex.file) + fmt.Sprintf("_%d", ex.line)
			if err := os.WriteFile(filepath.Join(dir, name+".txtar"), []byte(exampleScript(ex)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if count < 15 {
		t.Fatalf("found %d ts examples in the pages: the reader finds too few (each kind's page has one)", count)
	}
	p := scripttest.Params(dir)
	p.Setup = withExamples(t, p.Setup)
	testscript.Run(t, p)
}

// exampleScript is the testscript evaluating ex: in an empty project (or a
// copy of ex.dir), the toolchain pinned to the zap-eval the tests run, so
// no pin is fetched, then zap config validate.
func exampleScript(ex example) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s:%d, evaluated as a config of its own.\n", ex.file, ex.line)
	if ex.dir != "" {
		fmt.Fprintf(&b, "exec cp -R $EXAMPLES/../%s/. .\n", ex.dir)
	}
	b.WriteString("cp example.ts zap.ts\n")
	b.WriteString("blake3 $ZAP_BIN/zap-eval PIN\n")
	b.WriteString(`exec sh -c 'printf ''{"format":"zap.lock/2","entries":[],"toolchain":{"blake3":"%s"}}\n'' "$1" > zap.lock' sh $PIN` + "\n")
	b.WriteString("runas zap config validate\n")
	b.WriteString("stdout '^ok: [0-9]+ resource\\(s\\)$'\n")
	b.WriteString("! stderr .\n")
	if ex.converge {
		// Each variable it references, set; then a preview (changes
		// pending, exit 2) and the wetrun, which reads the machine again
		// and exits 0 only when all it applied reads converged.
		for _, m := range envRef.FindAllStringSubmatch(ex.code, -1) {
			fmt.Fprintf(&b, "env %s=example-value\n", m[1])
		}
		b.WriteString("runas -code 2 zap apply\n")
		b.WriteString("runas zap apply --wetrun\n")
		b.WriteString("stdout '^Observed: '\n")
		b.WriteString("! stdout 'RESIDUAL'\n")
	}
	b.WriteString("-- example.ts --\n")
	b.WriteString(ex.code)
	if ex.dir == "" {
		b.WriteString("-- package.json --\n{\"name\": \"example\", \"private\": true}\n")
	}
	return b.String()
}
