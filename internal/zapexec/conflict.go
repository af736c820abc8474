package zapexec

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/kinds"
	"github.com/zap-go/zap/internal/mask"
	"github.com/zap-go/zap/internal/resolve"
	"github.com/zap-go/zap/internal/stage"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// checkFrom reads every changed resource of p again, in one detection pass
// (each kind's Detect and Verdict, through host, the connection the run acts
// through) before the first step, and refuses the run (exit 2, nothing
// changed) when any no longer reads as the plan was made from: a create
// whose resource isn't absent, an update whose resource isn't drifted as
// the plan's drift says (converged for a service's trigger alone), or whose
// fingerprint (a file's content, keyed; detect.Fingerprint) moved. Every
// conflicting change is named, so a stale or replayed plan changes nothing
// and says why. Zap's own changes stand for no resource and aren't read.
func checkFrom(ctx context.Context, host detect.Host, p *plan.Plan, env detect.Env, masker *mask.Masker) error {
	var changes []*plan.Change
	var ds []detect.Detector
	for i := range p.Changes {
		c := &p.Changes[i]
		if c.Type == plan.KindZap {
			continue
		}
		changes = append(changes, c)
		ds = append(ds, kinds.Of(&c.Resource).Detect(&c.Resource, env))
	}
	if len(ds) == 0 {
		return nil
	}
	_, results := detect.Pass(ctx, host, ds)
	var key []byte
	var conflicts []string
	for i, c := range changes {
		r := results[i]
		fp := ""
		if r.Seen != "" && r.Verdict != observation.Undetermined {
			if key == nil {
				var err error
				if key, err = stage.FingerprintKey(); err != nil {
					return err
				}
			}
			fp = detect.Fingerprint(key, r.Seen)
		}
		if why := moved(c, r, fp); why != "" {
			conflicts = append(conflicts, fmt.Sprintf("conflict: %s (%s): %s", c.ID, c.Type, why))
		}
	}
	if len(conflicts) == 0 {
		return nil
	}
	msg := "the target no longer reads as the plan saw it, so nothing was changed:\n" + strings.Join(conflicts, "\n")
	return refuse(errors.New(masker.String(msg)),
		"make the plan again (zap-eval | zap-detect | zap-plan), review it, and run that")
}

// moved says how the change c's resource, read again as r (with the
// fingerprint fp of what it saw), differs from the state c was planned
// from; "" when it doesn't.
func moved(c *plan.Change, r detect.Result, fp string) string {
	if r.Verdict == observation.Undetermined {
		return "it can't be read now: " + r.Reason
	}
	if c.Action == plan.Create {
		if r.Verdict != observation.Absent {
			return fmt.Sprintf("it was absent when the plan was made, and is %s now", r.Verdict)
		}
		return ""
	}
	switch {
	case r.Verdict == observation.Absent:
		return "it was there when the plan was made, and is absent now"
	case r.Verdict == observation.Converged && len(c.Drift) > 0:
		return "it converged since the plan was made"
	}
	if why := driftMoved(c.Drift, r.Drift); why != "" {
		return why
	}
	if fp != c.Fingerprint {
		return "its content changed since the plan was made"
	}
	return ""
}

// driftMoved compares the drift a change was planned from with the drift
// read now, naming the first field that moved.
func driftMoved(was, now []observation.Difference) string {
	find := func(ds []observation.Difference, field string) (observation.Difference, bool) {
		for _, d := range ds {
			if d.Field == field {
				return d, true
			}
		}
		return observation.Difference{}, false
	}
	for _, w := range was {
		n, ok := find(now, w.Field)
		switch {
		case !ok:
			return fmt.Sprintf("its %s was %s when the plan was made, and no longer differs", w.Field, w.Observed)
		case n != w:
			return fmt.Sprintf("its %s was %s when the plan was made, and is %s now", w.Field, w.Observed, n.Observed)
		}
	}
	for _, n := range now {
		if _, ok := find(was, n.Field); !ok {
			return fmt.Sprintf("its %s is %s now, which the plan didn't see", n.Field, n.Observed)
		}
	}
	return ""
}

// detectEnv is what zap-exec builds its reads against: the plan's home,
// target managers and references, resolved as Prepare resolved them.
func detectEnv(p *plan.Plan, home string, res *resolve.Resolution) detect.Env {
	secret := map[string]bool{}
	for _, r := range res.References {
		secret[r.Name] = r.Secret
	}
	return detect.Env{
		Home:           home,
		Value:          func(name string) string { v, _ := res.Lookup(name); return v },
		Secret:         func(name string) bool { return secret[name] },
		Mask:           res.Masker(),
		PackageManager: p.Target.PackageManager,
		ServiceManager: p.Target.ServiceManager,
	}
}
