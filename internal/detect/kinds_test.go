package detect

import (
	"context"
	"fmt"

	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// Build makes r's detector as its kind's package (internal/kind/...) does,
// for the tests here, which can't import those packages (they import this
// one). The stages call kinds.Of(r).Detect.
func Build(r *declaration.Resource, env Env) Detector {
	switch r.Type {
	case declaration.KindFile:
		return NewFile(declaration.BodyOf[*declaration.File](r), env)
	}
	return Held(fmt.Sprintf("this zap can't read %s resources yet", r.Type))
}

// hostFunc is a host whose answers are f's, for the tests here.
type hostFunc func(observation.Lane, []Query) []Answer

func (f hostFunc) Answer(_ context.Context, lane observation.Lane, qs []Query) ([]Answer, error) {
	return f(lane, qs), nil
}

// svcExit is an answer that exited code with out, for the tests here.
func svcExit(code int, out string) Answer { return Answer{Status: StatusOK, Exit: code, Output: out} }
