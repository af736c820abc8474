package state

import (
	"time"

	"github.com/zap-go/zap/pkg/declaration"
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
	// Hasher hashes each resource and masks the host and user, with the
	// declaration's references resolved from the same environment the pass
	// ran with (resolve.Hasher).
	Hasher Hasher
}

// Hasher is what a report is made with: the hash of a resource's
// declaration with its tracked pin (resolve.ResourceHash) and the masking of every secret value
// out of the host and user it names. State keeps what it is given: resolving
// references and masking secrets are internal/resolve's.
type Hasher interface {
	Hash(r *declaration.Resource, pin string) (hash string, secret bool, err error)
	TargetHash(t *declaration.Target) (hash string, secret bool, err error)
	Mask(s string) string
}

// NewReport makes the report of a pass: each resource's verdict and hash
// (given the pin its reads compared against, which the hash folds in only
// when tracked), the names left unresolved and the batches. It copies
// nothing the target returned (no reason, no drift).
func NewReport(p Pass) (*Report, error) {
	o := p.Obs
	r := &Report{
		Format:     Format,
		Time:       p.Time.UTC().Format(time.RFC3339),
		Command:    p.Command,
		Host:       p.Hasher.Mask(o.Context.Target),
		User:       p.Hasher.Mask(o.Context.User),
		Preview:    p.Preview,
		PlanHash:   p.PlanHash,
		Unresolved: append([]string(nil), o.Unresolved...),
		Batches:    append([]observation.Batch{}, o.Batches...),
		Resources:  make([]Resource, 0, len(o.Resources)),
	}
	th, secret, err := p.Hasher.TargetHash(&o.Declaration.Target)
	if err != nil {
		return nil, err
	}
	r.TargetHash, r.TargetSecret = th, secret
	for i, v := range o.Resources {
		h, secret, err := p.Hasher.Hash(&o.Declaration.Resources[i], v.Pin)
		if err != nil {
			return nil, err
		}
		r.Resources = append(r.Resources, Resource{ID: v.ID, Verdict: v.Verdict, Hash: h, Secret: secret})
	}
	return r, nil
}
