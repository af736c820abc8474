package zapcli

import (
	"context"
	"slices"

	"github.com/zap-go/zap/internal/render"
	"github.com/zap-go/zap/internal/resolve"
	"github.com/zap-go/zap/internal/state"
	"github.com/zap-go/zap/pkg/observation"
)

// cmdStatus is zap status: the last run, offline. Its exit code is about the
// last run, not the machine now. A remote host that resolves to nothing is
// refused naming its variables (exit 2), as plan and detect refuse it.
func (a *app) cmdStatus(ctx context.Context, config string) error {
	s, err := a.open(config, true)
	if err != nil {
		return err
	}
	ev, err := s.load(ctx)
	if err != nil {
		return err
	}
	if err := s.conn.checkHost(); err != nil {
		return err
	}
	h := hostKey(ev.decl, s.res)
	l, err := s.lastRunOf(ev.decl)
	if err != nil {
		return err
	}
	res := s.res
	v := &render.StatusView{Host: h, UnresolvedNow: res.Unresolved}
	seen := map[string]state.Resource{}
	if l != nil {
		v.Last = l.Report
		for _, r := range l.Report.Resources {
			seen[r.ID] = r
		}
	}
	declared := map[string]bool{}
	hasher := resolve.NewHasher(res)
	code := 0
	for i := range ev.decl.Resources {
		r := &ev.decl.Resources[i]
		declared[r.ID] = true
		line := render.StatusResource{ID: r.ID, Type: r.Type}
		if got, ok := seen[r.ID]; ok {
			line.Read = true
			line.Verdict = got.Verdict
			hash, secret, err := hasher.Hash(r)
			if err != nil {
				return failf(1, "state: %v", err)
			}
			line.Secret = secret
			// A secret this environment can't resolve can't be masked
			// out of the hash: fail closed to "changed since", never a
			// false "unchanged".
			line.Changed = hash != got.Hash || secret && unresolvedIn(r.Refs(), res.Unresolved)
			if got.Verdict == observation.Undetermined {
				code = 1
			}
		} else {
			code = 1
		}
		v.Resources = append(v.Resources, line)
	}
	if l != nil {
		for _, r := range l.Report.Resources {
			if !declared[r.ID] {
				v.Orphans = append(v.Orphans, r.ID)
			}
		}
		if len(l.Report.Unresolved) > 0 {
			code = 1
		}
	}
	render.Status(a.stdout, v)
	return exit(code)
}

// unresolvedIn reports whether any of refs is unresolved.
func unresolvedIn(refs, unresolved []string) bool {
	for _, n := range refs {
		if slices.Contains(unresolved, n) {
			return true
		}
	}
	return false
}
