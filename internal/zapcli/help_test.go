package zapcli

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// envRead finds the variables a file reads by name: os.Getenv, LookupEnv
// and the getenv functions handed around, and ZAP_ names written whole.
var envRead = regexp.MustCompile(`(?:Getenv|LookupEnv|getenv|lookupEnv)\("([A-Z][A-Z0-9_]*)"\)|"(ZAP_[A-Z0-9_]*[A-Z0-9])"`)

// testOnly is where the variables only tests read live: the harness, the
// lab, the hooks only a zaptest build honours, and test data.
var testOnly = []string{"internal/scripttest", "internal/lab", "internal/testhook", "testdata"}

// TestEnvironmentDocumented checks that every variable a binary reads (but
// the tests' own: ZAP_TEST_*, *_TEST_*, GOCOVERDIR under a test hook) is
// in docs/cli.md's Environment section, and that every one zap's help
// lists is there too, so the help pages and the doc can't drift from the
// source.
func TestEnvironmentDocumented(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## Environment\n")
	if !ok {
		t.Fatal("docs/cli.md has no ## Environment section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	read := map[string]string{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "node_modules" || slices.ContainsFunc(testOnly, func(p string) bool { return rel == p || d.Name() == p }) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || rel == filepath.Join("internal", "zapcli", "help.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range envRead.FindAllStringSubmatch(string(data), -1) {
			name := m[1] + m[2]
			if strings.Contains(name, "TEST") || name == "GOCOVERDIR" {
				continue
			}
			read[name] = rel
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ZAP_HOME", "ZAP_EVAL", "ZAP_EVAL_CACHE", "HOME"} {
		if read[want] == "" {
			t.Errorf("the scan found no read of %s: it finds nothing", want)
		}
	}
	for name, file := range read {
		if !strings.Contains(section, "`"+name+"`") {
			t.Errorf("%s reads %s, which docs/cli.md's Environment section doesn't list", file, name)
		}
	}
	for _, v := range environment {
		for _, name := range strings.Split(v.name, ", ") {
			if !strings.Contains(section, "`"+name+"`") {
				t.Errorf("zap's help lists %s, which docs/cli.md's Environment section doesn't", name)
			}
		}
	}
}
