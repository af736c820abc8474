package refdoc

import (
	"fmt"
	"strings"
	"text/tabwriter"
)

// Markdown is the page as docs/kinds/ holds it: markdown that reads as
// plain text on a terminal too (zap doc prints Text).
func (p Page) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s (%s)\n\n%s\n", p.Name, p.Call, p.Summary)
	if p.About != "" {
		fmt.Fprintf(&b, "\n%s\n", p.About)
	}
	b.WriteString("\n## Fields\n\n")
	if p.What == "kind" {
		b.WriteString("`id` and the two after it are the fields every resource takes.\n\n")
	}
	for _, f := range p.Fields {
		fmt.Fprintf(&b, "- `%s` (%s): %s\n", f.Name, f.terms(), f.Rule)
	}
	for _, s := range p.Sections {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n", s.Title, s.Text)
	}
	return b.String()
}

// Text is the page as zap doc prints it: Markdown, with the words after a
// fence's language (converge, lab), which say how TestDocExamples runs an
// example in docs/kinds/, left off, since a reader copying the example has
// no use for them.
func (p Page) Text() string {
	lines := strings.Split(p.Markdown(), "\n")
	for i, l := range lines {
		if rest, ok := strings.CutPrefix(l, "```ts "); ok && rest != "" {
			lines[i] = "```ts"
		}
	}
	return strings.Join(lines, "\n")
}

// terms are a field's type, whether it is required, when it is read, and
// its default.
func (f Field) terms() string {
	t := []string{"`" + f.Type + "`"}
	switch {
	case f.Required:
		t = append(t, "required")
	case len(f.RequiredWhen) > 0:
		t = append(t, "required when "+f.under()+" is "+quoted(f.RequiredWhen))
	default:
		t = append(t, "optional")
	}
	if len(f.When) > 0 && !equal(f.When, f.RequiredWhen) {
		t = append(t, "read when "+f.under()+" is "+quoted(f.When))
	}
	if f.Default != "" {
		t = append(t, "default "+f.Default)
	}
	return strings.Join(t, ", ")
}

// under is the type field a variant's field is read by, "type" when it is
// the struct's own.
func (f Field) under() string {
	if f.Under == "" {
		return "type"
	}
	return "`" + f.Under + "`"
}

func equal(a, b []string) bool { return strings.Join(a, "|") == strings.Join(b, "|") }

// quoted is 'a', 'a' or 'b', 'a', 'b' or 'c'.
func quoted(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = "'" + v + "'"
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// Index is what zap doc alone prints: each page, one line.
func Index() string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	b.WriteString("Resource kinds (zap doc NAME prints one's page):\n\n")
	other := false
	for _, p := range Pages() {
		if p.What != "kind" && !other {
			tw.Flush()
			b.WriteString("\nThe rest of a config:\n\n")
			other = true
		}
		fmt.Fprintf(tw, "  %s\t%s\n", p.Name, p.Summary)
	}
	tw.Flush()
	return b.String()
}

// IndexMarkdown is docs/kinds/README.md: Index as links to the pages.
func IndexMarkdown() string {
	var b strings.Builder
	b.WriteString("# The reference: every kind, the target and the deploy block\n\n")
	b.WriteString("One page each, the same text `zap doc NAME` prints. Each page lists the\n")
	b.WriteString("fields a config writes, a whole example, what detection reads and what an\n")
	b.WriteString("apply runs.\n\n## Resource kinds\n\n")
	other := false
	for _, p := range Pages() {
		if p.What != "kind" && !other {
			b.WriteString("\n## The rest of a config\n\n")
			other = true
		}
		fmt.Fprintf(&b, "- [%s](%s.md) (`%s`): %s\n", p.Name, p.Name, p.Call, p.Summary)
	}
	return b.String()
}
