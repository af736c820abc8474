// Package opcmd words Zap's operations for a plan's = step and a report's
// step line (internal/render's OpSummary, internal/execute's Summary):
// Word is the one place an operation is worded by its name, so neither
// caller names one. A package operation reads as the commands it runs,
// word for word as its script (internal/ops/scripts) runs them, less the
// script's own checks of its arguments:
//
//	pkg-update-apt              apt-get update -q -o DPkg::Lock::Timeout=120
//	pkg-install-apk curl        apk add -- curl
//
// Each runs as root, so a plan shows it under an explicit sudo
// (DescribeSudo): sudo apk add -- curl.
//
// The table below is the one place that wording lives; its test checks
// that each command, as written here with the script's variables, is in its
// script's text, so the two can't drift apart. The package operations are
// worded here, not in the package kind's folder, because the planner
// batches every package's installs into them. The other operations with
// words of their own (a service's, an installer's, a user's keys', a
// database's, a verify's path check, a ufw operation's) are worded by
// their kinds (kind.Def's Word), which internal/kinds registers here
// (Register, words.go). The package imports only the contracts, so
// internal/render and internal/execute read the wording without the
// scripts.
package opcmd

import "strings"

// Forms holds, for each package operation, the commands its script runs
// in order, as the script's text writes them: "$@" stands for the
// operation's arguments (a package batch's names). A command's text is
// found in the script with its line continuations joined (see Normalize).
var Forms = map[string][]string{
	"pkg-update-apt": {`apt-get update -q -o DPkg::Lock::Timeout=120`},
	"pkg-install-apt": {`apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=120 ` +
		`-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold -- "$@"`},
	"pkg-update-apk":  {`apk update`},
	"pkg-install-apk": {`apk add -- "$@"`},
}

// Describe returns the commands the package operation name runs with
// args, its names, joined by "; ", and whether it knows them (an update
// takes no names, an install one or more). A name that isn't one plain
// shell word is shown single-quoted.
func Describe(name string, args []string) (string, bool) {
	return describe(name, args, "")
}

// DescribeSudo is Describe with each command under an explicit sudo, as a
// plan shows the commands of an operation that runs as root: the same for
// a root login and a sudoer (targets.md).
//
//	sudo apt-get update -q -o DPkg::Lock::Timeout=120
func DescribeSudo(name string, args []string) (string, bool) {
	return describe(name, args, "sudo ")
}

// describe is Describe with prefix before each command.
func describe(name string, args []string, prefix string) (string, bool) {
	cmds, ok := Forms[name]
	if !ok || strings.HasPrefix(name, "pkg-install-") != (len(args) > 0) {
		return "", false
	}
	words := make([]string, len(args))
	for i, a := range args {
		words[i] = Quote(a)
	}
	repl := strings.NewReplacer(`"$@"`, strings.Join(words, " "))
	out := make([]string, len(cmds))
	for i, c := range cmds {
		out[i] = prefix + repl.Replace(c)
	}
	return strings.Join(out, "; "), true
}

// Quote is s as one shell word: as it is when it holds only letters,
// digits and + - . / : = @ _ ~ (and doesn't start with ~ or =), else
// single-quoted.
func Quote(s string) string {
	plain := s != "" && s[0] != '~' && s[0] != '='
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("+-./:=@_~", c)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Normalize is a script's text with each line continuation (a backslash
// at a line's end, the newline and the next line's leading blanks) joined
// into one space, so a command written over lines reads as one.
func Normalize(script string) string {
	var b strings.Builder
	lines := strings.Split(script, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		for strings.HasSuffix(l, `\`) && i+1 < len(lines) {
			i++
			l = strings.TrimSuffix(l, `\`) + strings.TrimLeft(lines[i], " \t")
		}
		b.WriteString(l)
		b.WriteString("\n")
	}
	return b.String()
}
