package scripttest

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// architectureDocMaxLines is the most lines docs/architecture.md may have:
// it says how the code is built and why, and detail past that belongs in a
// package's doc comment, docs/perf.md or another page.
const architectureDocMaxLines = 600

// TestArchitectureDocAtMost600Lines holds docs/architecture.md to
// architectureDocMaxLines lines.
func TestArchitectureDocAtMost600Lines(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n > architectureDocMaxLines {
		t.Errorf("docs/architecture.md has %d lines, more than %d: move measurements and the record of what was tried to docs/perf.md, and detail to the code's doc comments", n, architectureDocMaxLines)
	}
}

// docRef is a reference to a page's section in prose: "docs/perf.md,
// Reads", "(docs/architecture.md, Detection)", "docs/cli.md (Exit codes)"
// or, inside docs/, "protocol.md, Limits". The title starts with a capital
// and runs to the first comma, full stop, semicolon or parenthesis.
var docRef = regexp.MustCompile(`(docs/)?([a-z]+)\.md(?:, | \()([A-Z][^,.;()]*)`)

// TestDocSectionReferencesResolve reads every reference to a section of
// docs/architecture.md or docs/perf.md, in the docs, the README and the Go
// source, and every reference those two pages make to a section of another
// page of docs/, and wants the page to have a heading that begins with the
// title, so moving or renaming a section can't leave a pointer to nothing.
func TestDocSectionReferencesResolve(t *testing.T) {
	root := repoRoot(t)
	checked := map[string]bool{"architecture": true, "perf": true}
	headings := map[string][]string{}
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(p), ".md")
		headings[name] = []string{}
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "#") {
				headings[name] = append(headings[name], strings.TrimSpace(strings.TrimLeft(line, "#")))
			}
		}
	}
	refs := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata" || rel == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, ".md") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		from := strings.TrimSuffix(filepath.Base(rel), ".md")
		fromChecked := filepath.Dir(rel) == "docs" && checked[from]
		text := strings.Join(strings.Fields(string(data)), " ")
		for _, m := range docRef.FindAllStringSubmatch(text, -1) {
			page, title := m[2], strings.TrimSpace(m[3])
			hs, ok := headings[page]
			if !ok {
				if m[1] != "" && (fromChecked || checked[page]) {
					t.Errorf("%s names docs/%s.md, which doesn't exist", rel, page)
				}
				continue
			}
			if !fromChecked && !checked[page] {
				continue
			}
			refs++
			if !hasHeading(hs, title) {
				t.Errorf("%s points at docs/%s.md, %q: the page has no heading beginning so", rel, page, title)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if refs == 0 {
		t.Error("no section reference found at all: the pattern no longer reads the pages")
	}
}

// hasHeading reports whether one of headings begins with title.
func hasHeading(headings []string, title string) bool {
	for _, h := range headings {
		if strings.HasPrefix(h, title) {
			return true
		}
	}
	return false
}
