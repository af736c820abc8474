package zapcli

import (
	"slices"
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// TestDriftOf: to the deploy's drift preflight a pipeline's run, Zap's own
// change and a service's restart fired only by sources that aren't drift
// are not drift; a service that drifted too, one owed a pending action, one
// fired by a drifted source (or by a service that is drift), any other
// change, and every held resource are.
func TestDriftOf(t *testing.T) {
	restart := func(pending observation.TriggerAction, by ...string) *plan.Trigger {
		return &plan.Trigger{Action: observation.Restart, By: by, Pending: pending}
	}
	p := &plan.Plan{
		Changes: []plan.Change{
			{ID: "migrate", Type: declaration.KindPipeline, Action: plan.Create},
			{ID: "index", Type: plan.KindZap, Action: plan.Create},
			{ID: "quiet", Type: declaration.KindService, Action: plan.Update, Trigger: restart("", "migrate")},
			{ID: "chained", Type: declaration.KindService, Action: plan.Update, Trigger: restart("", "quiet", "migrate")},
			{ID: "conf", Type: declaration.KindFile, Action: plan.Update, Drift: []observation.Difference{{Field: "content"}}},
			{ID: "fired", Type: declaration.KindService, Action: plan.Update, Trigger: restart("", "migrate", "conf")},
			{ID: "behind", Type: declaration.KindService, Action: plan.Update, Trigger: restart("", "fired")},
			{ID: "owed", Type: declaration.KindService, Action: plan.Update, Trigger: restart(observation.Restart, "migrate")},
			{ID: "drifted", Type: declaration.KindService, Action: plan.Update, Drift: []observation.Difference{{Field: "enabled"}}, Trigger: restart("", "migrate")},
			{ID: "unfired", Type: declaration.KindService, Action: plan.Update},
		},
		Held: []plan.Hold{{ID: "site", Type: declaration.KindFile, Reason: "the probe timed out"}},
	}
	var got []string
	for _, l := range driftOf(p) {
		got = append(got, strings.Fields(l)[0])
	}
	want := []string{"conf", "fired", "behind", "owed", "drifted", "unfired", "site:"}
	if !slices.Equal(got, want) {
		t.Errorf("drift: %q, want %q", got, want)
	}
}
