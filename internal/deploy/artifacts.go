package deploy

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/zap-go/zap/pkg/declaration"
)

// ArtifactsInside refuses an artifact that leaves the app's checkout (dir,
// or the checkout it is inside): one written as an absolute path or whose
// .. segments climb above the checkout's top, and one that reaches outside
// through a symbolic link, in its path or itself. The tarball packs from
// the top, so such an artifact would ship the operator's own files under a
// plan that reads a clean tree. An artifact that isn't there yet (the
// build makes it) passes here; the tarball step checks again.
func ArtifactsInside(ctx context.Context, dir string, artifacts []string) error {
	top, err := git(ctx, dir, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return fmt.Errorf("the deploy runs inside the app's git checkout: %w", err)
	}
	return artifactsInside(strings.TrimSpace(top), artifacts)
}

func artifactsInside(top string, artifacts []string) error {
	root, err := filepath.EvalSymlinks(top)
	if err != nil {
		return err
	}
	for i, a := range artifacts {
		field := fmt.Sprintf("deploy.artifacts[%d]", i)
		if declaration.LeavesTree(a) {
			return &InputError{Field: field, Msg: fmt.Sprintf("%q leaves the checkout: an artifact is a path inside the app's git checkout, relative to its top", a)}
		}
		real, err := filepath.EvalSymlinks(filepath.Join(root, a))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("%s: %w", field, err)
		}
		if rel, err := filepath.Rel(root, real); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			return &InputError{Field: field, Msg: fmt.Sprintf("%q leaves the checkout through a symbolic link: an artifact is a path inside the app's git checkout", a)}
		}
	}
	return nil
}
