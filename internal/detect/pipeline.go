package detect

import (
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// Pipeline is a pipeline's detector: it reads nothing and is always absent,
// so every wetrun runs its steps (a pipeline has no state to converge to).
type Pipeline struct{}

// Queries: none.
func (Pipeline) Queries() []Query { return nil }

// Verdict: absent, by construction.
func (Pipeline) Verdict([]Answer) Result { return Result{Verdict: observation.Absent} }

// NewPipeline makes a pipeline's detector, which reads nothing.
func NewPipeline(*declaration.Pipeline, Env) Detector { return Pipeline{} }
