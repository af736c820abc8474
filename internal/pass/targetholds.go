package pass

import (
	"fmt"
	"strings"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/kinds"
	"github.com/zap-go/zap/internal/resolve"
	"github.com/zap-go/zap/pkg/declaration"
)

// TargetHold is a field the config doesn't declare that resources of it
// need, so detection holds them whatever the machine holds: known from the
// config alone, before any contact.
type TargetHold struct {
	// Field is the field to add: zap.target's home or package_manager, or
	// from, a package's entry for the target's package_manager.
	Field string
	// IDs are the resources that hold for want of it, in declaration
	// order.
	IDs []string
	// Example is the field written as it could be added, such as
	// home: '/home/admin'.
	Example string
	// Manager is the target's package_manager, which from lacks (Field
	// from).
	Manager string
}

// TargetHolds lists what the target of d lacks that its resources need,
// read as zap-detect reads them (each resource's detector, built with no
// contact, references resolved with res): a remote target with no home
// holds every path under ~, one with no package_manager every package
// with no check, and one with a package_manager every package with no
// check whose from has no entry for it. nil when nothing holds for these.
func TargetHolds(d *declaration.Declaration, res *resolve.Resolution) []TargetHold {
	env := detect.Env{
		Home:           d.Target.Home,
		Value:          func(name string) string { v, _ := res.Lookup(name); return v },
		Secret:         func(string) bool { return true },
		PackageManager: d.Target.PackageManager,
		ServiceManager: d.Target.ServiceManager,
	}
	if d.Target.Local {
		// A local target's ~ is the operator's HOME, never missing.
		env.Home = "/"
	}
	var home, manager, entry []string
	froms := map[string]bool{}
	for i := range d.Resources {
		r := &d.Resources[i]
		reason, ok := detect.HeldReason(kinds.Of(r).Detect(r, env))
		switch {
		case !ok:
		case detect.ForWantOfHome(reason):
			home = append(home, r.ID)
		case detect.ForWantOfManager(reason):
			manager = append(manager, r.ID)
			if from, ok := r.PackageNames(); ok {
				for m := range from {
					froms[m] = true
				}
			}
		case detect.ForWantOfEntry(reason):
			entry = append(entry, r.ID)
		}
	}
	var out []TargetHold
	if len(home) > 0 {
		example := "home: '/home/USER'"
		if d.Target.User != nil {
			switch u, ok := d.Target.User.Plain(); {
			case ok && u == "root":
				example = "home: '/root'"
			case ok && u != "":
				example = fmt.Sprintf("home: '/home/%s'", u)
			}
		}
		out = append(out, TargetHold{Field: "home", IDs: home, Example: example})
	}
	if len(manager) > 0 {
		example := "package_manager: 'apt'"
		if len(froms) == 1 {
			for m := range froms {
				example = fmt.Sprintf("package_manager: '%s'", m)
			}
		}
		out = append(out, TargetHold{Field: "package_manager", IDs: manager, Example: example})
	}
	if len(entry) > 0 {
		m := d.Target.PackageManager
		out = append(out, TargetHold{Field: "from", IDs: entry, Example: fmt.Sprintf("from: {%s: 'NAME'}", m), Manager: m})
	}
	return out
}

// Problem says what h holds and why, in one sentence.
func (h TargetHold) Problem() string {
	if h.Field == "from" {
		return fmt.Sprintf("%d resource(s) are packages with no check whose from names no package for %s (zap.target's package_manager), so each holds: %s", len(h.IDs), h.Manager, strings.Join(h.IDs, ", "))
	}
	what := "use a path under ~ (Zap never guesses a remote home)"
	if h.Field == "package_manager" {
		what = "are packages with no check, which only the target's package manager can read"
	}
	return fmt.Sprintf("zap.target declares no %s, and %d resource(s) %s, so each holds: %s", h.Field, len(h.IDs), what, strings.Join(h.IDs, ", "))
}

// Hint is the field to add, as a hint line says it.
func (h TargetHold) Hint() string {
	if h.Field == "from" {
		return fmt.Sprintf("add an %s entry to the package's from, such as %s, or give it a check", h.Manager, h.Example)
	}
	return fmt.Sprintf("add %s to zap.target", h.Example)
}
