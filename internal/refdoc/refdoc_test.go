package refdoc

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/kinds"
	"github.com/zap-go/zap/internal/schema/docsrc"
)

// TestPagesCurrent fails when docs/kinds/ isn't what the schema and the
// prose make: a doc comment, a doc.md or this package changed and make
// generate wasn't run, or a page is there no name has.
func TestPagesCurrent(t *testing.T) {
	root, err := docsrc.Root()
	if err != nil {
		t.Fatal(err)
	}
	stale, err := Sync(filepath.Join(root, "docs", "kinds"), true)
	if err != nil {
		t.Fatal(err)
	}
	if len(stale) > 0 {
		t.Fatalf("docs/kinds: %s not current: run go generate ./internal/refdoc (or make generate)", strings.Join(stale, ", "))
	}
}

// awaiting are the kinds whose folder (and so whose doc.md) isn't there
// yet: they are listed by their type's doc and their fields alone. None
// now: a kind added is written with its prose.
var awaiting = []string{}

// TestEveryPageHasItsParts holds each page to its parts: a summary that
// fits the list's line, and for each kind (but those awaiting their
// folder) what it is, a whole example config that calls its builder, what
// detection reads and what an apply runs.
func TestEveryPageHasItsParts(t *testing.T) {
	for _, p := range Pages() {
		if p.Summary == "" || len(p.Summary) > 66 || strings.Contains(p.Summary, "\n") {
			t.Errorf("%s: its summary, the line zap doc lists it by, is one line of 1 to 66 characters, not %q", p.Name, p.Summary)
		}
		if len(p.Fields) == 0 {
			t.Errorf("%s: no fields", p.Name)
		}
		if p.What == "kind" && slices.Contains(awaiting, p.Name) {
			continue
		}
		if p.About == "" {
			t.Errorf("%s: says nothing of what it is", p.Name)
		}
		want := []string{"Example"}
		if p.What == "kind" {
			want = append(want, "Detection", "Apply")
		}
		var got []string
		for _, s := range p.Sections {
			got = append(got, s.Title)
			if s.Text == "" {
				t.Errorf("%s: section %s is empty", p.Name, s.Title)
			}
		}
		for _, w := range want {
			if !slices.Contains(got, w) {
				t.Errorf("%s: no ## %s section (has %v)", p.Name, w, got)
			}
		}
		for _, s := range p.Sections {
			if s.Title == "Example" && !(wholeExample.MatchString(s.Text) && strings.Contains(s.Text, p.Call+"(")) {
				t.Errorf("%s: the example is not a whole config (a ts block, export default (zap) => {...}) calling %s", p.Name, p.Call)
			}
		}
	}
}

// wholeExample opens a whole config's ts block, fenced as TestDocExamples
// (cmd/zap) reads it: evaluated only, converged here, or on a lab host.
var wholeExample = regexp.MustCompile("```ts(| converge| lab| lab=[a-z]+)\nexport default \\(zap\\) => \\{")

// TestEveryKindIsListed: each kind this zap acts on has a page, and those
// with a folder have their prose.
func TestEveryKindIsListed(t *testing.T) {
	names := Names()
	for _, d := range kinds.Docs() {
		if !slices.Contains(names, string(d.Type)) {
			t.Errorf("kind %s has no page", d.Type)
		}
		if d.Text == "" && !slices.Contains(awaiting, string(d.Type)) {
			t.Errorf("kind %s has no prose: add doc.go and doc.md to its folder and Doc: doc to its Kind", d.Type)
		}
	}
}

func TestLookup(t *testing.T) {
	for in, want := range map[string]string{"file": "file", "zap.pkg": "package", "pkg": "package", "package": "package", "Target": "target", "zap.deploy": "deploy", "apt_repo": "apt_repo"} {
		p, err := Lookup(in)
		if err != nil || p.Name != want {
			t.Errorf("Lookup(%q) = %q, %v; want %q", in, p.Name, err, want)
		}
	}
	for in, want := range map[string]string{"fiel": "file", "dir": "directory", "symlink": "link", "systemd": "service", "servce": "service", "xyzzy": ""} {
		_, err := Lookup(in)
		u, ok := err.(*UnknownError)
		if !ok || u.Suggest != want {
			t.Errorf("Lookup(%q) = %v; want a suggestion of %q", in, err, want)
		}
	}
}

// TestFieldTerms: a field's type, whether it is required, when it is read
// and its default, as a page says them.
func TestFieldTerms(t *testing.T) {
	p, err := Lookup("file")
	if err != nil {
		t.Fatal(err)
	}
	md := p.Markdown()
	for _, want := range []string{
		"- `path` (`string`, required): ",
		"- `content.template` (`string`, required when `content.type` is 'template'): ",
		"- `content.vars` (`Record<string, JsonValue>`, optional, read when `content.type` is 'template'): ",
		"- `mode` (`string`, optional): The octal mode",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("zap doc file has no line %q", want)
		}
	}
	sw, _ := Lookup("swap")
	if !strings.Contains(sw.Markdown(), "- `path` (`string`, optional, default /swapfile): ") {
		t.Errorf("zap doc swap doesn't give path's default:\n%s", sw.Markdown())
	}
	tg, _ := Lookup("target")
	if !strings.Contains(tg.Markdown(), "- `package_manager` (`'apt' | 'apk' | 'pacman' | 'brew'`, optional)") {
		t.Errorf("zap doc target doesn't spell package_manager's values:\n%s", tg.Markdown())
	}
}

func TestDefaultOf(t *testing.T) {
	for rule, want := range map[string]string{
		"Whether it starts at boot (default true).": "true",
		"Default 'deny'.": "'deny'",
		"A key. Default: the URL with .minisig added.":   "the URL with .minisig added",
		"A check. The default is the manager's query.":   "the manager's query",
		"The build's directory (the default) or a path.": "",
	} {
		if got := defaultOf(rule); got != want {
			t.Errorf("defaultOf(%q) = %q, want %q", rule, got, want)
		}
	}
}

// TestTextDropsTheFenceWords: zap doc's page shows an example's fence as
// plain ts, where docs/kinds/ keeps the words the examples test reads.
func TestTextDropsTheFenceWords(t *testing.T) {
	for _, name := range []string{"package", "file"} {
		p, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile("(?m)^```ts (lab|converge)").MatchString(p.Markdown()) {
			t.Fatalf("%s's page has no example fenced for a test; pick another kind here", name)
		}
		if m := regexp.MustCompile("(?m)^```ts .*$").FindString(p.Text()); m != "" {
			t.Errorf("zap doc %s shows the fence %q", name, m)
		}
		if !strings.Contains(p.Text(), "```ts\nexport default") {
			t.Errorf("zap doc %s lost its example's fence:\n%s", name, p.Text())
		}
	}
}
