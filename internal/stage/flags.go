package stage

import (
	"flag"
	"strings"

	"github.com/zap-go/zap/internal/suggest"
)

// The flag package's words for a command line it can't parse. It has no
// error types; these are the texts it has used since Go 1.
const (
	undefinedPrefix = "flag provided but not defined: -"
	noValuePrefix   = "flag needs an argument: -"
)

// FlagError rewords err, the flag package's refusal of a command line
// parsed into fs, the way Zap's binaries say it: flags written with two
// dashes, an unknown flag named with the one of fs it is likely a typo of
// (a hint "did you mean --diff?"), a flag missing its value named with the
// value it takes. Any other error keeps its text, its flags with two dashes.
func FlagError(err error, fs *flag.FlagSet) (msg string, hints []string) {
	text := err.Error()
	if name, ok := strings.CutPrefix(text, undefinedPrefix); ok {
		name = strings.TrimLeft(name, "-")
		if near, ok := suggest.Closest(name, FlagNames(fs)); ok {
			hints = append(hints, "did you mean --"+near+"?")
		}
		return "unknown flag --" + name, hints
	}
	if name, ok := strings.CutPrefix(text, noValuePrefix); ok {
		// A value named in the usage (`PATH`) is shown; a type is not.
		if f := fs.Lookup(name); f != nil && strings.Contains(f.Usage, "`") {
			if value, _ := flag.UnquoteUsage(f); value != "" {
				return "--" + name + " needs a value: --" + name + " " + value, nil
			}
		}
		return "--" + name + " needs a value", nil
	}
	return strings.Replace(strings.Replace(text, "flag -", "flag --", 1), " for -", " for --", 1), nil
}

// FlagNames is the names of fs's flags, in order.
func FlagNames(fs *flag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return names
}
