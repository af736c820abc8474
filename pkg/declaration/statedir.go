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
		for _, m := range r.statePaths() {
			if msg := stateMsg(m.value); msg != "" {
				return &Error{ID: r.ID, Field: m.field, Msg: msg}
			}
		}
		if l := r.Link; l != nil {
			if p, ok := literalAbs(l.Path); ok && isAboveState(p) {
				return &Error{ID: r.ID, Field: "path", Msg: fmt.Sprintf("a link at %s would replace a directory above %s, where Zap keeps its state", p, StateDir)}
			}
			if t, ok := linkTarget(l); ok && (underState(t) || isAboveState(t)) {
				return &Error{ID: r.ID, Field: "target", Msg: fmt.Sprintf("leads to %s, and a link can't lead into %s, where Zap keeps its state", t, StateDir)}
			}
		}
	}
	if d.Deploy != nil {
		if p := path.Clean(d.Deploy.Path); strings.HasPrefix(d.Deploy.Path, "/") && underState(p) {
			return &Error{Field: "deploy.path", Msg: fmt.Sprintf("%s is at or under %s, where Zap keeps its state", p, StateDir)}
		}
	}
	return nil
}

type statePath struct {
	field string
	value Text
}

// statePaths are the paths r manages, as written.
func (r *Resource) statePaths() []statePath {
	lit := func(field, s string) statePath { return statePath{field, Lit(s)} }
	switch {
	case r.File != nil:
		return []statePath{{"path", r.File.Path}}
	case r.Directory != nil:
		return []statePath{{"path", r.Directory.Path}}
	case r.Link != nil:
		return []statePath{{"path", r.Link.Path}}
	case r.AptRepo != nil:
		var out []statePath
		if r.AptRepo.KeyPath != "" {
			out = append(out, lit("key_path", r.AptRepo.KeyPath))
		}
		if r.AptRepo.ListFile != "" {
			out = append(out, lit("list_file", r.AptRepo.ListFile))
		}
		return out
	case r.Swap != nil && r.Swap.Path != "":
		return []statePath{lit("path", r.Swap.Path)}
	case r.Build != nil:
		return []statePath{{"output", r.Build.Output}}
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

// linkTarget is where l leads, cleaned, when that is known as written: an
// absolute target, or a relative one from a link at an absolute path.
func linkTarget(l *Link) (string, bool) {
	t, ok := l.Target.Plain()
	if !ok {
		return "", false
	}
	if strings.HasPrefix(t, "/") {
		return path.Clean(t), true
	}
	if strings.HasPrefix(t, "~") || strings.HasPrefix(t, "$HOME") {
		return "", false
	}
	p, ok := literalAbs(l.Path)
	if !ok {
		return "", false
	}
	return path.Join(path.Dir(p), t), true
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
