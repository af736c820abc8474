// Package review is the gate between a plan and a wetrun: a wetrun executes
// only a plan that was reviewed, the one --expect-plan names or the one the
// last preview on this host recorded, and claims that preview first, so one
// preview covers one wetrun. A plan with no review is refused, or, on a
// terminal, confirmed by typing the first eight characters of its
// plan_hash (Ask).
package review

import (
	"github.com/zap-go/zap/internal/render"
	"github.com/zap-go/zap/internal/state"
)

// Gate is the review gate's answer for one plan.
type Gate struct {
	// Reason says why the plan has no review, in render's Reason words;
	// "" when it has one.
	Reason string
	// preview is the last preview the plan binds to, which the wetrun
	// claims; nil when --expect-plan named the plan, or it has no review.
	preview *state.Loaded
}

// Mismatch reports whether --expect-plan (expect, "" when not given) names
// another plan than hash. The match is exact: a plan with nothing to
// execute isn't the one named either.
func Mismatch(hash, expect string) bool { return expect != "" && hash != expect }

// Bind is the gate for the plan whose plan_hash is hash: under
// --expect-plan (expect, which Mismatch has held to hash) the plan is the
// one named; otherwise it must be the one the host's last-run report
// (last, nil for none) recorded as its preview.
func Bind(hash, expect string, last *state.Loaded) Gate {
	switch {
	case expect != "":
		return Gate{}
	case last == nil:
		return Gate{Reason: render.ReasonNoPreview}
	case !last.Report.Preview:
		return Gate{Reason: render.ReasonNotPreview}
	case last.Report.PlanHash != hash:
		return Gate{Reason: render.ReasonChanged}
	}
	return Gate{preview: last}
}

// Claim spends the preview the gate bound to, the report of config on host
// in store, for this wetrun alone (state.Store.Claim): of two wetruns on
// one preview, the second gets state.ErrClaimLost. It does nothing when
// the gate bound to no preview.
func (g Gate) Claim(store *state.Store, config, host string) error {
	if g.preview == nil {
		return nil
	}
	return store.Claim(config, host, g.preview)
}
