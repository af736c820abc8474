package state

import (
	"time"

	"github.com/zap-go/zap/internal/resolve"
	"github.com/zap-go/zap/pkg/observation"
)

// Pass is what one detection pass gives a report.
type Pass struct {
	Command Command
	Preview bool
	// PlanHash is the plan_hash of a pass that planned, or "".
	PlanHash string
	Time     time.Time
	Obs      *observation.Observations
	// Res resolves the declaration's references for the hashes, from the
	// same environment the pass ran with.
	Res *resolve.Resolution
}

// NewReport makes the report of a pass: each resource's verdict and hash,
// the names left unresolved and the batches. It copies nothing the target
// returned (no reason, no drift).
func NewReport(p Pass) (*Report, error) {
	o := p.Obs
	r := &Report{
		Format:     Format,
		Time:       p.Time.UTC().Format(time.RFC3339),
		Command:    p.Command,
		Host:       Masker(p.Res).String(o.Context.Target),
		Preview:    p.Preview,
		PlanHash:   p.PlanHash,
		Unresolved: append([]string(nil), o.Unresolved...),
		Batches:    append([]observation.Batch{}, o.Batches...),
		Resources:  make([]Resource, 0, len(o.Resources)),
	}
	hr := newResourceHasher(p.Res)
	for i, v := range o.Resources {
		h, secret, err := hr.hash(&o.Declaration.Resources[i])
		if err != nil {
			return nil, err
		}
		r.Resources = append(r.Resources, Resource{ID: v.ID, Verdict: v.Verdict, Hash: h, Secret: secret})
	}
	return r, nil
}
