package zapexec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/fetch"
	"github.com/zap-go/zap/internal/mask"
	"github.com/zap-go/zap/internal/resolve"
	"github.com/zap-go/zap/internal/stage"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/plan"
)

// A build's step (vocab.OpBuild) takes two things the plan doesn't carry:
// its run's script, resolved here as a command step's is (refused, before
// anything runs, when a value can't be carried), and the source archive,
// fetched on the operator's machine (from the content cache, or the
// network on a miss, checked against the pin and, with verify, by
// minisign before it is cached) before the first change runs. The
// archive's SHA-512 and the run's script are appended to the step's
// arguments (they travel on stdin) and the archive is its payload.

// buildStep is one build step of a prepared plan.
type buildStep struct {
	change *plan.Change
	op     *execute.ZapOp
	run    string // the run's script, resolved
}

// buildSteps finds p's build steps and resolves each one's run and env.
func buildSteps(p *execute.Prepared, lookup execute.Lookup) ([]buildStep, error) {
	var out []buildStep
	for i := range p.Changes {
		c := &p.Changes[i]
		for j := range c.Steps {
			z := c.Steps[j].Op
			if z == nil || z.Name != string(vocab.OpBuild) {
				continue
			}
			b := c.Change.Resource.Build
			if b == nil || len(z.Args) != 1+vocab.BuildArgs {
				return nil, &execute.PrepareError{ID: c.Change.ID, Msg: "a build step with no build, or arguments it doesn't take"}
			}
			run, err := execute.RunScript(c.Change.ID, b.Run, b.Env, lookup)
			if err != nil {
				return nil, err
			}
			out = append(out, buildStep{change: c.Change, op: z, run: run})
		}
	}
	return out, nil
}

// attachSources fetches each build's source archive through the operator's
// content cache and makes it its step's payload, before anything runs. A
// source the rules refuse (its URL, a pin mismatch, a signature that
// doesn't verify, a minisign Zap won't run) refuses the run, exit 2; one
// the world keeps from it (the network, the cache) fails it, exit 1; in
// both nothing has changed on the target.
func attachSources(ctx context.Context, steps []buildStep, res *resolve.Resolution, masker *mask.Masker) error {
	if len(steps) == 0 {
		return nil
	}
	cache := contentCache()
	if cache == nil {
		return stage.InWorld(errors.New("a build's source goes through the content cache, and there is no state directory ($ZAP_HOME or ~/.zap) to hold it; nothing was changed"))
	}
	f := fetch.New(cache, fetch.Options{})
	defer f.Close()
	find := sync.OnceValues(func() (*fetch.Minisign, error) { return fetch.FindMinisign(os.Getenv) })
	for _, s := range steps {
		data, sha, err := source(ctx, f, s, res, find)
		if err != nil {
			refused := fetch.Refused(err)
			err = fmt.Errorf("resource %q: %s; nothing was changed", s.change.ID, masker.String(err.Error()))
			if refused {
				return refuse(err)
			}
			return stage.InWorld(err)
		}
		s.op.Payload = data
		s.op.Args = append(s.op.Args, sha, s.run)
	}
	return nil
}

// source is s's pinned source archive and its SHA-512.
func source(ctx context.Context, f *fetch.Fetcher, s buildStep, res *resolve.Resolution, find func() (*fetch.Minisign, error)) ([]byte, string, error) {
	fd, _ := s.change.Resource.Fetched()
	req := fetch.Request{
		Declared: fd.URL.String(),
		URL:      res.Text(fd.URL),
		Pin:      s.op.Args[1+vocab.BuildArgPin],
		Limit:    vocab.BuildSourceLimit,
	}
	if fd.Auth != nil {
		if req.Bearer = res.Text(*fd.Auth); req.Bearer == "" {
			return nil, "", fmt.Errorf("source.auth: resolves to nothing")
		}
	}
	if v := fd.Verify; v != nil {
		sigDeclared, sigURL := "", ""
		if v.SignatureURL != nil {
			sigDeclared, sigURL = v.SignatureURL.String(), res.Text(*v.SignatureURL)
		}
		req = f.Verified(ctx, req, v.PublicKey, sigDeclared, sigURL, find)
	}
	e, err := f.Fetch(ctx, req)
	if err != nil {
		return nil, "", err
	}
	defer e.Close()
	data, err := io.ReadAll(io.LimitReader(e.File, vocab.BuildSourceLimit+1))
	switch {
	case err != nil:
		return nil, "", fmt.Errorf("read the cached source: %w", err)
	case int64(len(data)) != e.Size:
		return nil, "", fmt.Errorf("the cached source changed as it was read")
	}
	return data, e.SHA512, nil
}
