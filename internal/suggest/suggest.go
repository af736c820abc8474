// Package suggest finds the name a user most likely meant when they typed
// one that doesn't exist: a field of a config resource, a resource kind, a
// command or a flag. It measures the edit distance (Levenshtein: one
// insertion, deletion or substitution of a character costs one; so does a
// swap of two neighbouring characters) between the typed name and each
// candidate, and offers the nearest one only when it is close enough to
// be a typo rather than another word.
package suggest

import (
	"strings"
	"unicode/utf8"
)

// maxName bounds the names compared: past it a name is no typo of a
// candidate, and the quadratic distance stays cheap whatever a user types.
const maxName = 64

// Distance returns the optimal string alignment distance between a and b,
// counted in runes: insertions, deletions, substitutions and transpositions
// of two adjacent runes each cost one.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Three rolling rows: two back for transpositions, one back, current.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d = min(d, prev2[j-2]+1)
			}
			cur[j] = d
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// Closest returns the candidate nearest to name and true, or "" and false
// when none is near enough to be a likely typo. Near enough means a
// distance of at most a third of the longer name's length (at least one),
// so "contnet" finds "content" and "aply" finds "apply", while "x" finds no
// "y". A case-only difference always counts. Ties go to the candidate
// listed first, so callers order candidates by preference.
func Closest(name string, candidates []string) (string, bool) {
	if name == "" || utf8.RuneCountInString(name) > maxName {
		return "", false
	}
	best, bestD := "", -1
	for _, c := range candidates {
		if c == name || utf8.RuneCountInString(c) > maxName {
			continue
		}
		d := Distance(name, c)
		if strings.EqualFold(name, c) {
			d = 0
		}
		if d > limit(name, c) {
			continue
		}
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	return best, bestD >= 0
}

// limit is the largest distance at which c still reads as a typo of name.
func limit(name, c string) int {
	n := max(utf8.RuneCountInString(name), utf8.RuneCountInString(c))
	return max(1, n/3)
}

// Hint returns ` (did you mean "x"?)` for the candidate Closest finds, or
// "" when there is none, ready to append to an error message.
func Hint(name string, candidates []string) string {
	if c, ok := Closest(name, candidates); ok {
		return ` (did you mean "` + c + `"?)`
	}
	return ""
}
