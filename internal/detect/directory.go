package detect

import (
	"fmt"

	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// Directory detects a directory. Its existence is read as the login user,
// following a link (test -d); its mode, owner and group, only when one is
// declared, with an elevated lstat.
type Directory struct {
	Path  string
	Shown string
	Attrs Attrs
}

// Queries: the followed type, and the lstat when attributes are declared.
func (d *Directory) Queries() []Query {
	q := []Query{{Op: OpType, Lane: observation.LaneLogin, Path: d.Path}}
	if d.Attrs.Declared() {
		q = append(q, Query{Op: OpStat, Lane: observation.LaneElevated, Path: d.Path})
	}
	return q
}

// Verdict: anything but a directory the login user reaches is absent; with
// no attribute declared existence is the whole state; with one, a symbolic
// link there drifts (the change then fails without touching what it points
// at), an unreadable stat holds, and the declared attributes are compared.
func (d *Directory) Verdict(a []Answer) Result {
	if len(a) != len(d.Queries()) {
		return hold(fmt.Sprintf("%d answers for %d reads of %s", len(a), len(d.Queries()), d.Shown))
	}
	switch e := a[0]; e.Status {
	case StatusOK:
		if e.Type != TypeDirectory {
			return absent()
		}
	case StatusMissing, StatusDenied:
		return absent()
	default:
		return hold(problem(e, d.Shown, 0))
	}
	if !d.Attrs.Declared() {
		return converged()
	}
	st := a[1]
	if st.Status != StatusOK || st.Type != TypeDirectory {
		return restat(st, d.Shown, "directory")
	}
	if drift := d.Attrs.diff(st); len(drift) > 0 {
		return drifted(drift)
	}
	return converged()
}

// NewDirectory makes a directory's detector.
func NewDirectory(d *declaration.Directory, env Env) Detector {
	path, shown, reason := resolvePath("path", d.Path, env)
	if reason != "" {
		return Held(reason)
	}
	return &Directory{Path: path, Shown: shown, Attrs: Attrs{Mode: d.Mode, Owner: d.Owner, Group: d.Group}}
}
