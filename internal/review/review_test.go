package review

import (
	"testing"

	"github.com/zap-go/zap/internal/render"
	"github.com/zap-go/zap/internal/state"
)

// TestBind: a plan binds to the last preview only when that preview
// recorded exactly its plan_hash; --expect-plan binds it with no preview.
func TestBind(t *testing.T) {
	preview := &state.Loaded{Report: &state.Report{Preview: true, PlanHash: "h"}}
	for _, c := range []struct {
		name, hash, expect string
		last               *state.Loaded
		reason             string
		claims             bool
	}{
		{"the preview's plan", "h", "", preview, "", true},
		{"no preview", "h", "", nil, render.ReasonNoPreview, false},
		{"not a preview", "h", "", &state.Loaded{Report: &state.Report{PlanHash: "h"}}, render.ReasonNotPreview, false},
		{"another plan", "g", "", preview, render.ReasonChanged, false},
		{"--expect-plan", "g", "g", nil, "", false},
	} {
		g := Bind(c.hash, c.expect, c.last)
		if g.Reason != c.reason || (g.preview != nil) != c.claims {
			t.Errorf("%s: reason %q, claims %v", c.name, g.Reason, g.preview != nil)
		}
	}
	if !Mismatch("h", "g") || Mismatch("h", "h") || Mismatch("h", "") {
		t.Error("Mismatch holds --expect-plan to the exact plan_hash, and only when given")
	}
}
