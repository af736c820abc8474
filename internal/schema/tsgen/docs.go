package tsgen

import "strings"

// firstParagraph is a doc's lines: schema's docs keep only a comment's
// first paragraph, what the TypeScript types say.
func firstParagraph(doc string) []string {
	if doc = strings.TrimSpace(doc); doc == "" {
		return nil
	}
	return strings.Split(doc, "\n")
}

// described is a type's doc as the TypeScript types say it: its first
// paragraph, without the "Name is " Go begins it with.
func described(name, doc string) []string {
	lines := firstParagraph(doc)
	if len(lines) == 0 {
		return nil
	}
	for _, verb := range []string{" is ", " are "} {
		if rest, ok := strings.CutPrefix(lines[0], name+verb); ok && rest != "" {
			lines[0] = strings.ToUpper(rest[:1]) + rest[1:]
			return reflow(lines)
		}
	}
	return lines
}
