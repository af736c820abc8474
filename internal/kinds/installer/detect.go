package installer

import (
	"fmt"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// Installer detects an installer by its check path alone: something there
// (a link followed) is installed, nothing there is absent. The read is
// elevated, like every check path: as root over SSH, and locally as the
// operator first, asked again under sudo when refused.
type Installer struct {
	Path  string
	Shown string
}

// NewInstaller builds the detector of the installer i (kind.Def.Read).
func NewInstaller(i *declaration.Installer, env detect.Env) detect.Detector {
	path, shown, reason := detect.ResolvePath("check", i.Check, env)
	if reason != "" {
		return detect.Held(reason)
	}
	return &Installer{Path: path, Shown: shown}
}

// Queries: the check path's type, a link followed.
func (i *Installer) Queries() []detect.Query {
	return []detect.Query{{Op: detect.OpType, Lane: observation.LaneElevated, Path: i.Path}}
}

// Verdict: anything at the check path (of any type) is converged, nothing
// there absent; a read that gave no answer (denied even as root, timed out,
// failed) holds, since an installer's run isn't something to repeat on a
// guess.
func (i *Installer) Verdict(a []detect.Answer) detect.Result {
	if len(a) != 1 {
		return detect.Holding(fmt.Sprintf("%d answers for the 1 read of %s", len(a), i.Shown))
	}
	switch r := a[0]; r.Status {
	case detect.StatusOK:
		return detect.Converged()
	case detect.StatusMissing:
		return detect.Absent()
	default:
		return detect.Holding(detect.Problem(r, "the check path "+i.Shown, 0))
	}
}
