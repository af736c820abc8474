package declaration

import (
	"fmt"
	"path"
	"strings"
)

// StateDir is where Zap keeps its own state on a target (the pending
// trigger markers). A declaration can't manage it (resources.md).
const StateDir = "/var/lib/zap"

// stateAbove are the directories above StateDir: a link placed at one would
// replace it, and a link pointing at one leads into StateDir through the
// rest of its path.
var stateAbove = []string{"/", "/var", "/var/lib"}

// checkStateDir is the structural rule that keeps a declaration out of
// StateDir, judged on the paths as written ("." and ".." taken as written):
// a managed path at or under it, a home-rooted managed path with a ".."
// component (where it leads depends on the home), a link whose target is
// StateDir, under it or a directory above it, a link placed at a directory
// above it, and a deploy.path at or under it. A path that reaches StateDir
// only once a reference or ~ resolves is left to detection; a path whose
// literal start already puts it under StateDir is refused here.
func (d *Declaration) checkStateDir() error {
	for i := range d.Resources {
		r := &d.Resources[i]
		if m := r.checkState(); m != nil {
			return &Error{ID: r.ID, Field: m.field, Msg: m.msg}
		}
	}
	if d.Deploy != nil {
		if p := path.Clean(d.Deploy.Path); strings.HasPrefix(d.Deploy.Path, "/") && underState(p) {
			return &Error{Field: "deploy.path", Msg: fmt.Sprintf("%s is at or under %s, where Zap keeps its state", p, StateDir)}
		}
	}
	return nil
}

// A stateKind is a kind whose resources name paths on the target beside
// the one a pathKind manages, or have more to say about StateDir.
type stateKind interface {
	// checkState returns checkStateDir's finding on the resource, or nil.
	checkState() *fieldMsg
}

// checkState is checkStateDir's rule for one resource: the path a
// pathKind manages, then what a stateKind says.
func (r *Resource) checkState() *fieldMsg {
	s := r.Body
	if p, ok := s.(pathKind); ok {
		if m := statePaths(statePath{"path", p.managedPath()}); m != nil {
			return m
		}
	}
	if k, ok := s.(stateKind); ok {
		return k.checkState()
	}
	return nil
}

// statePath is a path a resource manages, as written, and its field.
type statePath struct {
	field string
	value Text
}

// statePaths returns the first of paths that reaches into StateDir, or
// nil. An empty path (an optional one left out) is never refused.
func statePaths(paths ...statePath) *fieldMsg {
	for _, p := range paths {
		if msg := stateMsg(p.value); msg != "" {
			return &fieldMsg{p.field, msg}
		}
	}
	return nil
}

// stateMsg says why the path t is refused, or "" when it isn't.
func stateMsg(t Text) string {
	parts := t.Parts()
	if len(parts) == 0 || parts[0].Env != "" {
		return ""
	}
	lit, whole := parts[0].Lit, len(parts) == 1
	home := lit == "~" || strings.HasPrefix(lit, "~/") || lit == "$HOME" || strings.HasPrefix(lit, "$HOME/")
	if home {
		for _, c := range strings.Split(lit, "/") {
			if c == ".." {
				return fmt.Sprintf("%q goes up with .. from the home directory: write the path from / instead", t.String())
			}
		}
		return ""
	}
	if !strings.HasPrefix(lit, "/") {
		return ""
	}
	if !whole {
		// Only the directories before the first reference are known.
		i := strings.LastIndex(lit, "/")
		if strings.Contains(lit[i+1:], "..") || lit[i+1:] == "." {
			return ""
		}
		lit = lit[:i+1]
	}
	if p := path.Clean(lit); underState(p) {
		return fmt.Sprintf("%s is at or under %s, where Zap keeps its state", t.String(), StateDir)
	}
	return ""
}

// literalAbs is t cleaned when it is an absolute path with no reference.
func literalAbs(t Text) (string, bool) {
	s, ok := t.Plain()
	if !ok || !strings.HasPrefix(s, "/") {
		return "", false
	}
	return path.Clean(s), true
}

// underState reports whether the clean path p is StateDir or under it.
func underState(p string) bool {
	return p == StateDir || strings.HasPrefix(p, StateDir+"/")
}

func isAboveState(p string) bool {
	for _, a := range stateAbove {
		if p == a {
			return true
		}
	}
	return false
}
