package link

import (
	"fmt"

	"github.com/zap-go/zap/internal/detect"
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
func (l *Link) Queries() []detect.Query {
	return []detect.Query{{Op: detect.OpReadlink, Lane: observation.LaneLogin, Path: l.Path}}
}

// Verdict: a path that isn't a symlink, or that the login user can't reach,
// is absent (a regular file there is replaced by the link); another target
// drifts.
func (l *Link) Verdict(a []detect.Answer) detect.Result {
	if len(a) != 1 {
		return detect.Holding(fmt.Sprintf("%d answers for 1 read of %s", len(a), l.Shown))
	}
	r := a[0]
	switch {
	case r.Status == detect.StatusOK && r.Target == l.Target:
		return detect.Converged()
	case r.Status == detect.StatusOK:
		return detect.Drifted([]observation.Difference{{Field: "target", Observed: r.Target, Desired: l.TargetShown}})
	case r.Status == detect.StatusMissing || r.Status == detect.StatusDenied:
		return detect.Absent()
	}
	return detect.Holding(detect.Problem(r, "the symbolic link "+l.Shown, 0))
}

// Placement is the link's path; a link is given no owner or group
// (detect.Placed).
func (l *Link) Placement() (string, string, string) { return l.Path, "", "" }

// NewLink makes a link's detector, resolving its path and target.
func NewLink(l *declaration.Link, env detect.Env) detect.Detector {
	path, shown, reason := detect.ResolvePath("path", l.Path, env)
	if reason != "" {
		return detect.Held(reason)
	}
	target, targetShown, reason := detect.ResolveTarget("target", l.Target, env, ", so the link has no target")
	if reason != "" {
		return detect.Held(reason)
	}
	return &Link{Path: path, Shown: shown, Target: target, TargetShown: targetShown}
}
