package detect

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/zap-go/zap/internal/mask"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// Detector is one resource's reads and its verdict.
type Detector interface {
	// Queries lists the reads the verdict needs, in a fixed order.
	Queries() []Query
	// Verdict turns the answers, one per query in the order of Queries,
	// into the resource's verdict. It reads nothing else.
	Verdict(answers []Answer) Result
}

// Result is a verdict with what explains it: the reason for an undetermined
// one, the differences for a drifted one.
type Result struct {
	Verdict observation.Verdict
	Reason  string
	Drift   []observation.Difference
	// Seen is what the reads found that Drift's display text doesn't show
	// and a plan must be held to (a file's SHA-512), set by the kinds that
	// have such a state. It is never published as read: the observations
	// carry Fingerprint(key, Seen).
	Seen string
	// Pin is the blake3 pin the reads of a resource that fetches compared
	// against, vendored or zap.lock's; the plan carries it to the steps
	// that place the pinned bytes. "" for any other resource.
	Pin string
	// DiffSides are, for a file read for a diff (Env.Diff) whose content
	// would change, the target's bytes and the desired ones, which
	// zap-detect makes the diff of (internal/textdiff); Diff is instead
	// the line that says why no diff is shown. Display only: no plan
	// holds either.
	DiffSides *DiffSides
	Diff      string
}

func converged() Result         { return Result{Verdict: observation.Converged} }
func absent() Result            { return Result{Verdict: observation.Absent} }
func hold(reason string) Result { return Result{Verdict: observation.Undetermined, Reason: reason} }
func drifted(d []observation.Difference) Result {
	return Result{Verdict: observation.Drifted, Drift: d}
}

// Converged, Absent, Holding and Drifted are the results a kind's own
// detector gives (internal/kinds/<kind>): converged; absent; held for
// reason; drifted by d.
func Converged() Result                         { return converged() }
func Absent() Result                            { return absent() }
func Holding(reason string) Result              { return hold(reason) }
func Drifted(d []observation.Difference) Result { return drifted(d) }

// ResolvePath resolves the path field named field of a kind's own
// detector (see resolvePath).
func ResolvePath(field string, t declaration.Text, env Env) (path, shown, reason string) {
	return resolvePath(field, t, env)
}

// ResolveValue resolves the value field of a kind's own detector (see
// resolveValue).
func ResolveValue(field string, t declaration.Text, env Env, bad string) (string, string) {
	return resolveValue(field, t, env, bad)
}

// ResolveTarget resolves a value field that may start with ~ or $HOME (a
// link's target) as resolveValue does, refusing a line break or NUL, then
// its ~ against env's home: it returns the value, the value as a reason
// shows it, or a reason to hold, which for a value that resolves empty is
// the field, the references that left it so, then empty.
func ResolveTarget(field string, t declaration.Text, env Env, empty string) (value, shown, reason string) {
	v, reason := resolveValue(field, t, env, "\r\n\x00")
	switch {
	case reason != "":
		return "", "", reason
	case v == "":
		return "", "", field + ": " + unsetRefs(t) + empty
	case env.Home == "" && usesHome(v):
		return "", "", noHome(field)
	}
	v = expandHome(v, env.Home)
	return v, show(t, v, env), ""
}

// Shown is how a kind's own detector shows the value t resolved to (see
// show).
func Shown(t declaration.Text, resolved string, env Env) string { return show(t, resolved, env) }

// Problem is why the answer a of a read of what gave nothing to judge (see
// problem), for a kind's own detector.
func Problem(a Answer, what string, timeout int) string { return problem(a, what, timeout) }

// Env is what a detector is built against: the home ~ and $HOME resolve to,
// and the operator environment references resolve from.
type Env struct {
	// Home is what ~ and $HOME resolve to; "" when it isn't known (a
	// remote target that declares none), and a path under ~ holds.
	Home string
	// Value is what the variable name resolves to ("" when unset).
	Value func(name string) string
	// Secret reports whether the variable name is a secret, whose value a
	// reason must not show.
	Secret func(name string) bool
	// Mask masks every secret the pass resolved; a reason that quotes the
	// target's own output masks it before cutting it, so the cut never
	// keeps part of a secret. nil: the quote is cut as read.
	Mask *mask.Masker
	// PackageManager and ServiceManager are the target's, as declared ("":
	// none declared).
	PackageManager string
	ServiceManager string
	// Pin is the pin of a resource that fetches (f is r.Fetched()): the
	// vendored one or zap.lock's, with the SHA-512 the content cache
	// holds for it. nil: only a vendored pin counts, and nothing is cached
	// (PinOf).
	Pin func(r *declaration.Resource, f declaration.Fetched) Pin
	// Remember puts bytes a remote file's read-back found on the target,
	// which hashed to pin, in the operator's content cache; nil keeps
	// nothing.
	Remember func(pin string, data []byte)
	// Resource is the resource being read, which kind.Def's Detect sets
	// before it builds the detector (a pin is looked up by it).
	Resource *declaration.Resource
	// Diff has a file's detector read the text a diff of its content
	// shows (zap plan --diff), in the same batch; Fingerprint keys a
	// SHA-512 for a diff withheld because the file holds a secret (nil:
	// sizes only), and Cached is the pinned bytes of remote content the
	// content cache holds, at most limit+1 of them (nil: none).
	Diff        bool
	Fingerprint func(sha512hex string) string
	Cached      func(pin string, limit int) ([]byte, bool)
}

// held is a detector for a resource that can't be read at all: it declares
// no query and holds.
type held struct{ reason string }

func (h held) Queries() []Query        { return nil }
func (h held) Verdict([]Answer) Result { return hold(h.reason) }

// Held returns a detector that reads nothing and holds with reason.
func Held(reason string) Detector { return held{reason} }

// HeldReason is the reason of a detector that holds without reading
// anything (Held), and whether d is one: a hold known before any contact.
func HeldReason(d Detector) (string, bool) {
	h, ok := d.(held)
	return h.reason, ok
}

// ForWantOfHome reports whether reason is a hold for a path under ~ on a
// target that declares no home.
func ForWantOfHome(reason string) bool { return strings.HasSuffix(reason, noHome("")) }

// NoManager is the reason a package with no check holds on a target that
// declares no package_manager.
const NoManager = "the target declares no package_manager, so the package can't be read (declare one in zap.target, or give the package a check)"

// NoEntry ends the reason a package with no check holds when its from
// names no package for the target's package_manager (after its noName, internal/kinds/pkg).
const NoEntry = ", so the package can't be read (add an entry, or give the package a check)"

// ForWantOfManager reports whether reason is a hold of a package with no
// check on a target that declares no package_manager.
func ForWantOfManager(reason string) bool { return reason == NoManager }

// ForWantOfEntry reports whether reason is a hold of a package with no
// check whose from names no package for the target's package_manager.
func ForWantOfEntry(reason string) bool {
	return strings.HasPrefix(reason, "from names no package for ") && strings.HasSuffix(reason, NoEntry)
}

// resolveValue resolves t, refusing a reference whose value holds one of the
// bytes in bad or a reference marker. The reason names the field and the
// variable, never the value.
func resolveValue(field string, t declaration.Text, env Env, bad string) (string, string) {
	for _, name := range t.Refs() {
		v := env.Value(name)
		if strings.ContainsAny(v, bad) {
			what := "a NUL"
			if strings.ContainsAny(bad, "\r\n") {
				what = "a line break or NUL"
			}
			return "", fmt.Sprintf("%s: the reference %s resolves to a value holding %s, which Zap won't use here", field, name, what)
		}
		if strings.ContainsAny(v, string([]rune{declaration.RefOpen, declaration.RefClose})) {
			return "", fmt.Sprintf("%s: the reference %s resolves to a value holding a reference marker character (U+FDD0 or U+FDD1)", field, name)
		}
	}
	s, _ := t.Resolve(func(name string) (string, bool) { return env.Value(name), true })
	return s, ""
}

// resolvePath resolves a path field: its references, then ~ and $HOME. It
// returns the path, the path as a reason shows it, or a reason to hold.
func resolvePath(field string, t declaration.Text, env Env) (path, shown, reason string) {
	s, reason := resolveValue(field, t, env, "\r\n\x00")
	if reason != "" {
		return "", "", reason
	}
	if err := declaration.CheckPathValue(s); err != nil {
		// A path written with a literal start passed Validate, so the
		// fault is the reference it starts with.
		name := ""
		if parts := t.Parts(); len(parts) > 0 {
			name = parts[0].Env
		}
		switch {
		case name == "":
			return "", "", fmt.Sprintf("%s: resolves to a path Zap won't use (%v)", field, err)
		case env.Value(name) == "":
			return "", "", fmt.Sprintf("%s: the reference %s is unset or empty, so the path isn't absolute", field, name)
		}
		return "", "", fmt.Sprintf("%s: the reference %s resolves to a path that isn't absolute (nor under ~)", field, name)
	}
	if env.Home == "" && usesHome(s) {
		return "", "", noHome(field)
	}
	s = expandHome(s, env.Home)
	for len(s) > 1 && strings.HasSuffix(s, "/") {
		s = s[:len(s)-1]
	}
	return s, show(t, s, env), ""
}

// usesHome reports whether s starts with ~ or $HOME.
func usesHome(s string) bool {
	for _, prefix := range []string{"~", "$HOME"} {
		if s == prefix || strings.HasPrefix(s, prefix+"/") {
			return true
		}
	}
	return false
}

// noHome is the reason a field under ~ holds on a target with no home.
func noHome(field string) string {
	return field + ": is under ~, and the target declares no home (Zap never guesses a remote home)"
}

// expandHome resolves a leading ~ or $HOME against home.
func expandHome(s, home string) string {
	base := strings.TrimSuffix(home, "/")
	for _, prefix := range []string{"~", "$HOME"} {
		if s == prefix {
			if base == "" {
				return "/"
			}
			return base
		}
		if rest, ok := strings.CutPrefix(s, prefix+"/"); ok {
			return base + "/" + rest
		}
	}
	return s
}

// show is how a reason names a resolved value: as resolved, unless it
// carries a secret, when it is shown as written.
func show(t declaration.Text, resolved string, env Env) string {
	for _, name := range t.Refs() {
		if env.Secret != nil && env.Secret(name) {
			return t.String()
		}
	}
	return resolved
}

// unsetRefs names t's references for a reason about an empty value.
func unsetRefs(t declaration.Text) string {
	refs := t.Refs()
	if len(refs) == 1 {
		return "the reference " + refs[0] + " is unset or empty"
	}
	return "the references " + strings.Join(refs, ", ") + " are unset or empty"
}

// Attrs are the mode, owner and group a file or directory declares; an empty
// one is not managed and not read. A file's and a directory's reads share
// them (internal/kinds/file, internal/kinds/directory), with Restat.
type Attrs struct {
	Mode  string
	Owner string
	Group string
}

// Declared reports whether any attribute is managed.
func (a Attrs) Declared() bool { return a.Mode != "" || a.Owner != "" || a.Group != "" }

// Diff compares the declared attributes with a stat answer.
func (a Attrs) Diff(s Answer) []observation.Difference {
	var out []observation.Difference
	if a.Mode != "" {
		want, err := strconv.ParseUint(a.Mode, 8, 32)
		if err != nil || uint32(want) != s.Mode&0o7777 {
			out = append(out, observation.Difference{Field: "mode", Observed: strconv.FormatUint(uint64(s.Mode&0o7777), 8), Desired: a.Mode})
		}
	}
	if a.Owner != "" && s.Owner != a.Owner {
		out = append(out, observation.Difference{Field: "owner", Observed: s.Owner, Desired: a.Owner})
	}
	if a.Group != "" && s.Group != a.Group {
		out = append(out, observation.Difference{Field: "group", Observed: s.Group, Desired: a.Group})
	}
	return out
}

// Restat is the verdict when the stat that reads a path's mode and owner,
// made after its type was read, finds other than want there: a link is
// drift (the path is to be replaced), anything else changed while it was
// read and holds, as does a stat that failed. A file's and a directory's
// reads share it (internal/kinds/file, internal/kinds/directory).
func Restat(st Answer, shown, want string) Result {
	switch {
	case st.Status == StatusOK && st.Type == TypeSymlink:
		return drifted([]observation.Difference{SymlinkAt(want)})
	case st.Status == StatusOK:
		return hold(fmt.Sprintf("%s changed while it was read: it is now %s", shown, st.Type.Describe()))
	case st.Status == StatusMissing:
		return hold(fmt.Sprintf("%s changed while it was read: nothing is there now", shown))
	}
	return hold(problem(st, "the mode and owner of "+shown, 0))
}

// SymlinkAt is the difference of a symbolic link where the declaration
// wants something else (want: "regular file", "directory").
func SymlinkAt(want string) observation.Difference {
	return observation.Difference{Field: "type", Observed: "symbolic link", Desired: want}
}

// Placed is the detector of a kind that places a path (a file, a directory,
// a link): the path as resolved, and the owner and group its change gives
// it ("" where it declares none).
type Placed interface {
	Detector
	Placement() (path, owner, group string)
}
