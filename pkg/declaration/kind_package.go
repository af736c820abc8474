package declaration

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Package is an OS package, installed through the target's package manager
// (declared with zap.pkg; its type in the declaration is "package").
type Package struct {
	// The package's name for each manager, such as {apt: 'ripgrep'}. A name
	// is one word in the manager's syntax and takes no reference.
	From map[string]string `json:"from" zap:"instead=package" ts:"Partial<Record<PackageManager, string>>"`
	// A custom check: a path (beginning /, ~ or $HOME; tested for existence,
	// takes a reference) or a command (exit 0 means installed; takes no
	// reference). The default is the manager's own query.
	Check *Text `json:"check,omitempty" zap:"hook=check"`
}

func (x *Package) CheckForm() *Finding {
	if len(x.From) == 0 {
		return fieldf("from", "names no package: write {apt: 'name'} and the like")
	}
	for _, m := range slices.Sorted(maps.Keys(x.From)) {
		if !slices.Contains(PackageManagers, m) {
			return fieldf("from."+m, "%q is not a package manager (apt, apk, pacman or brew)", m)
		}
		if why, ok := ValidPackageName(m, x.From[m]); !ok {
			return fieldf("from."+m, "%q %s", x.From[m], why)
		}
	}
	if x.Check != nil {
		if err := checkCommand(*x.Check); err != nil {
			return fieldf("check", "%v", err)
		}
		if err := oneLine(x.Check.String()); err != nil {
			return fieldf("check", "%v", err)
		}
		if x.Check.HasRefs() && !isPathCheck(*x.Check) {
			return fieldf("check", "a command check takes no reference: a check is a path (beginning /, ~ or $HOME) or a command run as written")
		}
	}
	return nil
}

func (x *Package) Clone() Body {
	c := *x
	c.From = maps.Clone(x.From)
	c.Check = clonePtr(x.Check)
	return &c
}

func (x *Package) Texts(out map[string]Text) {
	if x.Check != nil {
		out["check"] = *x.Check
	}
}

var aptNamePattern = newPattern(`^[A-Za-z0-9][A-Za-z0-9+._=~:/@-]*$`)
var aptArchPattern = newPattern(`^[a-z0-9-]+$`)

// ValidPackageName reports whether name is one word in the syntax of the
// package manager, and a form whose query can find it installed (resources.md,
// Package names). It returns the reason when it isn't.
func ValidPackageName(manager, name string) (string, bool) {
	if !aptNamePattern.MatchString(name) || strings.HasSuffix(name, "-") {
		return "is not one word: a letter or digit, then letters, digits and + . _ - = ~ : / @, not ending in -", false
	}
	switch manager {
	case "apt":
		return validAptName(name)
	case "apk":
		switch {
		case strings.HasPrefix(name, "!"), strings.HasPrefix(name, "."):
			return "begins with ! or .", false
		case strings.Contains(name, ">") || strings.Contains(name, "<"):
			return "holds a version comparison", false
		}
		for _, op := range []string{"==", "=", "~"} {
			if strings.HasSuffix(name, op) {
				return "has a version operator with nothing after it", false
			}
		}
	}
	return "", true
}

// validAptName is ValidPackageName's apt rules. apt-get takes the selector
// after the last = (a version) or / (a suite), then the architecture after
// the : of what is left; a version may hold a : of its own (an epoch,
// 1:2.0-1).
func validAptName(name string) (string, bool) {
	base, sel := name, ""
	if i := strings.LastIndexAny(name, "=/"); i >= 0 {
		base, sel = name[:i], name[i:]
	}
	base, arch, hasArch := strings.Cut(base, ":")
	hasVersion, version := strings.HasPrefix(sel, "="), strings.TrimPrefix(sel, "=")
	switch {
	case strings.Contains(name, "=") && strings.Contains(name, "/"):
		return "names a version and a suite together, which names no package apt knows", false
	case strings.ContainsAny(base, "=/"):
		return "names more than one version or suite, which names no package apt knows", false
	case hasVersion && version == "":
		return "has an empty version (name=)", false
	case strings.HasSuffix(name, "/"):
		return "has an empty suite (name/)", false
	case hasArch && arch == "":
		return "has an empty architecture (name:)", false
	case hasArch && (arch == "any" || arch == "native"):
		return fmt.Sprintf("names the architecture %s, which dpkg records no package under; name the architecture, or none", arch), false
	case hasArch && arch == "all":
		return "names the architecture all, which apt reads as the native one; name the architecture, or none", false
	case hasArch && !aptArchPattern.MatchString(arch):
		return fmt.Sprintf("names the architecture %q, which isn't one word of lowercase letters, digits and -", arch), false
	}
	return "", true
}

// IsPathCheck reports whether a package's (or an installer's) check is a
// path (it begins /, ~ or $HOME) rather than a command.
func IsPathCheck(t Text) bool { return isPathCheck(t) }

// isPathCheck reports whether a package's check is a path (it begins /, ~
// or $HOME) rather than a command.
func isPathCheck(t Text) bool {
	first := t.Parts()[0]
	if first.Env != "" {
		return false
	}
	s := first.Lit
	return strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~") || strings.HasPrefix(s, "$HOME")
}
