package detect

import (
	"fmt"

	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// Link detects a symbolic link by reading its target as the login user.
type Link struct {
	Path        string
	Shown       string
	Target      string // resolved
	TargetShown string // as a difference shows it
}

// Queries: the link's target.
func (l *Link) Queries() []Query {
	return []Query{{Op: OpReadlink, Lane: observation.LaneLogin, Path: l.Path}}
}

// Verdict: a path that isn't a symlink, or that the login user can't reach,
// is absent (a regular file there is replaced by the link); another target
// drifts.
func (l *Link) Verdict(a []Answer) Result {
	if len(a) != 1 {
		return hold(fmt.Sprintf("%d answers for 1 read of %s", len(a), l.Shown))
	}
	switch r := a[0]; r.Status {
	case StatusOK:
		if r.Target == l.Target {
			return converged()
		}
		return drifted([]observation.Difference{{Field: "target", Observed: r.Target, Desired: l.TargetShown}})
	case StatusMissing, StatusDenied:
		return absent()
	default:
		return hold(problem(r, "the symbolic link "+l.Shown, 0))
	}
}

// NewLink makes a link's detector, resolving its path and target.
func NewLink(l *declaration.Link, env Env) Detector {
	path, shown, reason := resolvePath("path", l.Path, env)
	if reason != "" {
		return Held(reason)
	}
	target, reason := resolveValue("target", l.Target, env, "\r\n\x00")
	if reason != "" {
		return Held(reason)
	}
	if target == "" {
		return Held("target: " + unsetRefs(l.Target) + ", so the link has no target")
	}
	if env.Home == "" && usesHome(target) {
		return Held(noHome("target"))
	}
	target = expandHome(target, env.Home)
	return &Link{Path: path, Shown: shown, Target: target, TargetShown: show(l.Target, target, env)}
}
