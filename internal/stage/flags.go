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
// args parsed into fs, the way Zap's binaries say it: an unknown flag
// named as args spell it (Typed: -v stays -v) with the one of fs it is
// likely a typo of (a hint "did you mean --diff?"), other flags written
// with two dashes, a flag missing its value named with the value it takes. Any other error keeps its text, its flags with two dashes.
func FlagError(err error, fs *flag.FlagSet, args []string) (msg string, hints []string) {
	text := err.Error()
	if name, ok := strings.CutPrefix(text, undefinedPrefix); ok {
		name = strings.TrimLeft(name, "-")
		if near, ok := suggest.Closest(name, FlagNames(fs)); ok {
			hints = append(hints, "did you mean --"+near+"?")
		}
		return "unknown flag " + Typed(args, name), hints
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

// Typed is the flag name as args spell it, with its dashes: -v stays -v,
// where the flag package names every flag with one dash and Zap with two.
// A name args don't hold (after "--", say) is spelt with two.
func Typed(args []string, name string) string {
	for _, arg := range args {
		if arg == "--" {
			break
		}
		for _, dashes := range []string{"--", "-"} {
			if arg == dashes+name || strings.HasPrefix(arg, dashes+name+"=") {
				return dashes + name
			}
		}
	}
	return "--" + name
}

// FlagNames is the names of fs's flags, in order.
func FlagNames(fs *flag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return names
}
