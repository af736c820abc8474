package zapexec

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/fetch"
	"github.com/zap-go/zap/internal/mask"
	"github.com/zap-go/zap/internal/resolve"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/plan"
)

// A build's step (vocab.OpBuild) takes two things the plan doesn't carry:
// its run's script, resolved here as a command step's is (refused, before
// anything runs, when a value can't be carried), and the source archive,
// fetched on the operator's machine (from the content cache, or the
// network on a miss, checked against the pin and, with verify, by
// minisign before it is cached) before the first change runs. The
// archive's SHA-512 and length and the run's script are appended to the
// step's arguments (they travel on stdin) and the archive is its payload.

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
			cmd, env, ok := c.Change.Resource.BuildCommand()
			if !ok || len(z.Args) != 1+vocab.BuildArgs {
				return nil, &execute.PrepareError{ID: c.Change.ID, Msg: "a build step with no build, or arguments it doesn't take"}
			}
			run, err := execute.RunScript(c.Change.ID, cmd, env, lookup)
			if err != nil {
				return nil, err
			}
			out = append(out, buildStep{change: c.Change, op: z, run: run})
		}
	}
	return out, nil
}

// attachSources fetches each build's source archive through the operator's
// content cache and makes it its step's payload, before anything runs: the
// cache entry's file, held open until the returned release is called and
// streamed to the target when the step runs, raw after the script's
// arguments (ops.StreamInput), never held whole on either side. A source the
// rules refuse (its URL, a pin mismatch, a signature that doesn't verify, a
// minisign Zap won't run, more than vocab.BuildSourceLimit bytes, a cache
// hit included) refuses the run, exit 2; one the world keeps from it (the
// network, the cache) fails it, exit 1; in both nothing has changed on the
// target.
func attachSources(ctx context.Context, steps []buildStep, res *resolve.Resolution, masker *mask.Masker) (release func(), err error) {
	var held []*fetch.Entry
	release = func() {
		for _, e := range held {
			e.Close()
		}
	}
	if len(steps) == 0 {
		return release, nil
	}
	cache := contentCache()
	if cache == nil {
		return release, exit.InWorld(errors.New("a build's source goes through the content cache, and there is no state directory ($ZAP_HOME or ~/.zap) to hold it; nothing was changed"))
	}
	f := fetch.New(cache, fetch.Options{})
	defer f.Close()
	defer func() {
		if err != nil {
			release()
		}
	}()
	find := sync.OnceValues(func() (*fetch.Minisign, error) { return fetch.FindMinisign(os.Getenv) })
	for _, s := range steps {
		e, err := source(ctx, f, s, res, find)
		if err != nil {
			refused := fetch.Refused(err)
			err = fmt.Errorf("resource %q: %s; nothing was changed", s.change.ID, masker.String(err.Error()))
			if refused {
				return release, refuse(err)
			}
			return release, exit.InWorld(err)
		}
		held = append(held, e)
		s.op.Payload = &execute.Body{From: e.File, Size: e.Size}
		s.op.Args = append(s.op.Args, e.SHA512, strconv.FormatInt(e.Size, 10), s.run)
	}
	return release, nil
}

// source is s's pinned source archive: its content cache entry, open.
func source(ctx context.Context, f *fetch.Fetcher, s buildStep, res *resolve.Resolution, find func() (*fetch.Minisign, error)) (*fetch.Entry, error) {
	fd, _ := s.change.Resource.Fetched()
	req := fetch.Request{
		Declared: fd.URL.String(),
		URL:      res.Text(fd.URL),
		Pin:      s.op.Args[1+vocab.BuildArgPin],
		Limit:    vocab.BuildSourceLimit,
	}
	if fd.Auth != nil {
		if req.Bearer = res.Text(*fd.Auth); req.Bearer == "" {
			return nil, fmt.Errorf("source.auth: resolves to nothing")
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
		return nil, err
	}
	if e.Size > vocab.BuildSourceLimit {
		e.Close()
		// A cache hit isn't fetched, so the fetch's bound didn't see it.
		return nil, &fetch.Error{URL: req.Declared, Err: fmt.Errorf("%w: the cached source is %d bytes, more than %d MiB, the most a build's source may be", fetch.ErrTooLarge, e.Size, vocab.BuildSourceLimit>>20)}
	}
	return e, nil
}
