package vocab

import "strings"

// Quote single-quotes s for a POSIX shell, a ' inside closing the quote,
// escaped, and reopening it. It is how every value Zap puts in a script of
// its own is spelled: a probe's and a command's, and the arguments an
// operation script reads on stdin.
func Quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
