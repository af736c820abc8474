package deploy

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/zeebo/blake3"

	"github.com/zap-go/zap/pkg/deployplan"
)

// gitLimit bounds one git command, gitOutput what Zap keeps of its output.
const (
	gitLimit  = 2 * time.Minute
	gitOutput = 16 << 20
)

// gitConfig are the settings every read of the tree passes, so no setting
// of the checkout's narrows what counts as a change (docs/deploy-design.md).
var gitConfig = []string{
	"-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false", "-c", "core.ignoreStat=false",
	"-c", "core.fileMode=true", "-c", "core.autocrlf=false", "-c", "core.splitIndex=false",
}

// git runs git in dir with env added, and returns its stdout; an error says
// what git said.
func git(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, gitLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append(append([]string{}, gitConfig...), args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errb capped
	out.max, errb.max = gitOutput, 64<<10
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	switch {
	case ctx.Err() != nil:
		return "", fmt.Errorf("git %s: took longer than %v", args[0], gitLimit)
	case out.over:
		return "", fmt.Errorf("git %s: printed more than %d MiB", args[0], gitOutput>>20)
	case errors.Is(err, exec.ErrNotFound):
		return "", errNoGit
	case err != nil:
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("git %s: %s", args[0], msg)
	}
	return out.String(), nil
}

// capped is a buffer that keeps max bytes and notes whether more came.
type capped struct {
	bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.Len(); len(p) > room {
		c.over = true
		c.Buffer.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return c.Buffer.Write(p)
}

// ReadSource reads the release's source from the checkout at dir: the
// commit, its version (git rev-parse --short=12) and whether the tree is
// the commit. A tree is dirty when it adds anything to the commit: a
// changed or removed tracked file, a mode change, an untracked file git
// doesn't ignore, a submodule whose checkout differs, or a sparse
// checkout. Its id is 8 hex of a blake3 over what it adds: the tree git
// writes for it (the whole tree as it stands, through a private index
// built from the commit, so no flag or timestamp of the checkout's own
// index counts) and the submodules' status lines.
func ReadSource(ctx context.Context, dir string) (deployplan.Source, error) {
	var s deployplan.Source
	top, err := git(ctx, dir, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return s, fmt.Errorf("the deploy runs inside the app's git checkout: %w", err)
	}
	top = strings.TrimSpace(top)
	commit, err := git(ctx, top, nil, "rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return s, fmt.Errorf("the checkout has no commit to deploy: %w", err)
	}
	short, err := git(ctx, top, nil, "rev-parse", "--short=12", "HEAD")
	if err != nil {
		return s, err
	}
	s.Commit, s.Version, s.Tree = strings.TrimSpace(commit), strings.TrimSpace(short), deployplan.Clean
	id, dirty, err := treeState(ctx, top, s.Commit)
	if err != nil {
		return s, err
	}
	if dirty {
		s.Tree, s.DirtyID = deployplan.Dirty, id
		s.Version += "-dirty-" + id
	}
	return s, nil
}

// treeState says whether the checkout at top differs from commit, and the
// id of what it adds.
func treeState(ctx context.Context, top, commit string) (id string, dirty bool, err error) {
	sparse, err := git(ctx, top, nil, "config", "--type=bool", "--default=false", "core.sparseCheckout")
	if err != nil {
		return "", false, err
	}
	gitDir, err := git(ctx, top, nil, "rev-parse", "--absolute-git-dir")
	if err != nil {
		return "", false, err
	}
	tmp, err := os.MkdirTemp(strings.TrimSpace(gitDir), "zap-deploy-index-")
	if err != nil {
		return "", false, fmt.Errorf("a private index for reading the tree: %w", err)
	}
	defer os.RemoveAll(tmp)
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(tmp, "index")}
	if _, err := git(ctx, top, env, "read-tree", commit); err != nil {
		return "", false, err
	}
	if _, err := git(ctx, top, env, "add", "--all", "--", ":/"); err != nil {
		return "", false, err
	}
	tree, err := git(ctx, top, env, "write-tree")
	if err != nil {
		return "", false, err
	}
	base, err := git(ctx, top, nil, "rev-parse", commit+"^{tree}")
	if err != nil {
		return "", false, err
	}
	subs, err := git(ctx, top, env, "status", "--porcelain=v1", "-z", "--untracked-files=normal", "--ignore-submodules=none")
	if err != nil {
		return "", false, err
	}
	h := blake3.New()
	fmt.Fprintf(h, "zap deploy tree v1\ntree %s\n", strings.TrimSpace(tree))
	h.WriteString(subs)
	dirty = strings.TrimSpace(tree) != strings.TrimSpace(base) || subs != "" || strings.TrimSpace(sparse) == "true"
	if strings.TrimSpace(sparse) == "true" {
		h.WriteString("sparse\n")
	}
	return hex.EncodeToString(h.Sum(nil))[:8], dirty, nil
}

// errNoGit is the error for a machine with no git.
var errNoGit = errors.New("git is not installed on this machine; zap deploy reads the release's version with it")
