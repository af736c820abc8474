package directory

import (
	"fmt"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// Directory detects a directory. Its existence is read as the login user,
// following a link (test -d); its mode, owner and group, only when one is
// declared, with an elevated lstat.
type Directory struct {
	Path  string
	Shown string
	Attrs detect.Attrs
}

// Queries: the followed type, and the lstat when attributes are declared.
func (d *Directory) Queries() []detect.Query {
	q := []detect.Query{{Op: detect.OpType, Lane: observation.LaneLogin, Path: d.Path}}
	if d.Attrs.Declared() {
		q = append(q, detect.Query{Op: detect.OpStat, Lane: observation.LaneElevated, Path: d.Path})
	}
	return q
}

// Verdict: anything but a directory the login user reaches is absent; with
// no attribute declared existence is the whole state; with one, a symbolic
// link there drifts (the change then fails without touching what it points
// at), an unreadable stat holds, and the declared attributes are compared.
func (d *Directory) Verdict(a []detect.Answer) detect.Result {
	if len(a) != len(d.Queries()) {
		return detect.Holding(fmt.Sprintf("%d answers for %d reads of %s", len(a), len(d.Queries()), d.Shown))
	}
	switch e := a[0]; e.Status {
	case detect.StatusOK:
		if e.Type != detect.TypeDirectory {
			return detect.Absent()
		}
	case detect.StatusMissing, detect.StatusDenied:
		return detect.Absent()
	default:
		return detect.Holding(detect.Problem(e, d.Shown, 0))
	}
	if !d.Attrs.Declared() {
		return detect.Converged()
	}
	st := a[1]
	if st.Status != detect.StatusOK || st.Type != detect.TypeDirectory {
		return detect.Restat(st, d.Shown, "directory")
	}
	if drift := d.Attrs.Diff(st); len(drift) > 0 {
		return detect.Drifted(drift)
	}
	return detect.Converged()
}

// Placement is the directory's path, owner and group (detect.Placed).
func (d *Directory) Placement() (string, string, string) { return d.Path, d.Attrs.Owner, d.Attrs.Group }

// NewDirectory makes a directory's detector.
func NewDirectory(d *declaration.Directory, env detect.Env) detect.Detector {
	path, shown, reason := detect.ResolvePath("path", d.Path, env)
	if reason != "" {
		return detect.Held(reason)
	}
	return &Directory{Path: path, Shown: shown, Attrs: detect.Attrs{Mode: d.Mode, Owner: d.Owner, Group: d.Group}}
}
