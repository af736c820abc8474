package file

import (
	"context"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// testEnv is an environment to build a detector against: home /home/ops,
// vars the operator's values, secrets those of them that are secret.
func testEnv(vars map[string]string, secrets ...string) detect.Env {
	return detect.Env{
		Home:  "/home/ops",
		Value: func(n string) string { return vars[n] },
		Secret: func(n string) bool {
			for _, s := range secrets {
				if s == n {
					return true
				}
			}
			return false
		},
	}
}

// Build makes r's detector, r being a file.
func Build(r *declaration.Resource, env detect.Env) detect.Detector {
	return NewFile(declaration.BodyOf[*declaration.File](r), env)
}

// fileAt is a file of inline content "hello" at p.
func fileAt(p declaration.Text) *declaration.Resource {
	content := "hello"
	return &declaration.Resource{
		Common: declaration.Common{ID: "f", Type: declaration.KindFile},
		Body:   &declaration.File{Path: p, Content: declaration.Content{Type: declaration.ContentInline, Inline: &content}},
	}
}

// hostFunc is a host whose answers are f's.
type hostFunc func(observation.Lane, []detect.Query) []detect.Answer

func (f hostFunc) Answer(_ context.Context, lane observation.Lane, qs []detect.Query) ([]detect.Answer, error) {
	return f(lane, qs), nil
}
