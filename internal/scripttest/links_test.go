package scripttest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// codeSpan is inline code, whose text is no link.
var codeSpan = regexp.MustCompile("`[^`\n]*`")

// mdLink is a markdown link's target: ](TARGET).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocLinksResolve reads every relative link of the README and the
// pages under docs/ and wants the file it names there, and the heading a
// #fragment names in it (as GitHub makes a heading's anchor), so a page
// moved or a section renamed can't leave a user's link to nothing.
func TestDocLinksResolve(t *testing.T) {
	root := repoRoot(t)
	pages := []string{filepath.Join(root, "README.md")}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			pages = append(pages, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, page := range pages {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, page)
		for _, m := range mdLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(withoutCode(string(data)), ""), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			dest := page
			if file != "" {
				dest = filepath.Join(filepath.Dir(page), filepath.FromSlash(file))
			}
			checked++
			fi, err := os.Stat(dest)
			if err != nil {
				t.Errorf("%s: the link %s leads to nothing", rel, target)
				continue
			}
			if frag == "" || fi.IsDir() {
				continue
			}
			text, err := os.ReadFile(dest)
			if err != nil {
				t.Fatal(err)
			}
			if !anchors(string(text))[frag] {
				t.Errorf("%s: the link %s names no heading of %s", rel, target, file)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("checked %d links: the reader finds too few", checked)
	}
}

// withoutCode is a page without its fenced code blocks, whose text is no
// link.
func withoutCode(s string) string {
	var b strings.Builder
	in := false
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			in = !in
			continue
		}
		if !in {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// anchors are the anchors GitHub gives a page's headings: lower case,
// spaces as -, punctuation but - and _ dropped.
func anchors(page string) map[string]bool {
	out := map[string]bool{}
	for _, l := range strings.Split(withoutCode(page), "\n") {
		h, ok := strings.CutPrefix(l, "#")
		if !ok {
			continue
		}
		h = strings.TrimSpace(strings.TrimLeft(h, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
				b.WriteRune(r)
			}
		}
		out[b.String()] = true
	}
	return out
}
