package execute

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/zap-go/zap/internal/fetch"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/events"
	"github.com/zap-go/zap/pkg/plan"
)

// Remote is where a step's fetched bytes come from: fetched (or found in
// the content cache) on the operator's machine when the step runs, and
// checked against Pin before anything on the target is touched.
type Remote struct {
	// Declared is the URL as the config declares it, the only spelling an
	// error shows; URL is it resolved.
	Declared, URL string
	// Bearer is the resolved auth credential ("" for none). It is sent to
	// the URL's own origin only and never printed.
	Bearer string
	// Pin is the blake3 the bytes must hash to.
	Pin string
	// Limit, when positive, is the most bytes these may be, below the
	// step's own bound, and What names what it bounds ("an apt signing
	// key"): a fetch or a cache entry over it fails the step.
	Limit int64
	What  string
}

// Fetcher gets pinned bytes: from the content cache, or fetched into it
// (internal/fetch's Fetcher).
type Fetcher interface {
	Fetch(ctx context.Context, req fetch.Request) (*fetch.Entry, error)
}

// RemoteLimit is the largest remote file or archive a step places: fetch's
// size bound. The bytes are streamed from their content cache entry to the
// target, never held whole, so the bound is the cache's and the target's
// room, not the operator's memory; an entry over it (a cache hit isn't
// fetched, so fetch's own bound doesn't see it) fails the step, saying so.
const RemoteLimit = fetch.DefaultMaxBytes

// Body is content too large to hold: read as it is sent, from its first
// byte each time it is wanted (a put refused natively is sent again whole
// under sudo). A remote file's bytes and a build's source archive are one,
// their content cache entry's file held open for the run.
type Body struct {
	From io.ReaderAt
	Size int64
}

// Reader is the body from its first byte.
func (b *Body) Reader() io.Reader { return io.NewSectionReader(b.From, 0, b.Size) }

// Len is the length of a put's content: its Body's, else Content's.
func (p *Put) Len() int64 {
	if p.Body != nil {
		return p.Body.Size
	}
	return int64(len(p.Content))
}

// Reader is a put's content from its first byte: its Body, else Content.
func (p *Put) Reader() io.Reader {
	if p.Body != nil {
		return p.Body.Reader()
	}
	return bytes.NewReader(p.Content)
}

// prepareRemote resolves a remote content's url and auth (an auth that
// resolves to nothing is refused: no request goes without the credential
// it declares) and checks its pin.
func (r resolver) prepareRemote(c *declaration.Content) (*Remote, error) {
	url, err := r.text("content.url", *c.URL)
	if err != nil {
		return nil, err
	}
	out := &Remote{Declared: c.URL.String(), URL: url, Pin: c.Blake3}
	if c.Auth != nil {
		if out.Bearer, err = r.text("content.auth", *c.Auth); err != nil {
			return nil, err
		}
		if out.Bearer == "" {
			return nil, r.fail("content.auth", "resolves to nothing, and an empty credential is never sent")
		}
	}
	if !fetch.ValidPin(out.Pin) {
		return nil, r.fail("content.blake3", "the plan's pin %q is not 64 lowercase hex digits", out.Pin)
	}
	return out, nil
}

// getRemote is the pinned bytes of rm, at most limit of them: from the
// content cache, or fetched into it, hashed again on the way (both
// digests). A fetch that fails, bytes that aren't the pin's, or more of
// them than limit fail the step before the target is touched.
func (r *Runner) getRemote(ctx context.Context, rm *Remote, limit int64) (*fetch.Entry, error) {
	if r.Fetch == nil {
		return nil, Errorf(events.Permanent, "this run can't fetch remote content; nothing was written")
	}
	what := "a remote file or archive"
	if rm.Limit > 0 && rm.Limit < limit {
		limit, what = rm.Limit, rm.What
	}
	e, err := r.Fetch.Fetch(ctx, fetch.Request{Declared: rm.Declared, URL: rm.URL, Bearer: rm.Bearer, Pin: rm.Pin, Limit: limit})
	switch {
	case errors.Is(err, fetch.ErrTooLarge):
		return nil, Errorf(events.Permanent, "%v: %s may be at most %s; nothing on the target was touched", err, what, sizeText(limit))
	case err != nil:
		return nil, Errorf(fetchCode(err), "%v; nothing on the target was touched", err)
	}
	switch {
	case e.Blake3 != rm.Pin:
		e.Close()
		return nil, Errorf(events.Permanent, "%v; nothing on the target was touched", &fetch.MismatchError{Want: rm.Pin, Got: e.Blake3})
	case e.Size > limit:
		e.Close()
		return nil, Errorf(events.Permanent, "%s is %d bytes, more than %s, the most %s may be; nothing on the target was touched", rm.Declared, e.Size, sizeText(limit), what)
	}
	return e, nil
}

// sizeText is n bytes in MiB when it is a whole number of them.
func sizeText(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// fetchCode is the triage code of a fetch's failure.
func fetchCode(err error) events.Code {
	switch {
	case errors.Is(err, fetch.ErrTimeout):
		return events.Transient
	case errors.Is(err, fetch.ErrStatus):
		return events.NotFound
	case errors.Is(err, fetch.ErrUntrusted):
		return events.Permission
	}
	return events.Permanent
}

// remotePut puts p with its remote content's bytes streamed from their
// cache entry (Body), never held whole; the target checks the staged bytes
// against the entry's SHA-512, taken as it was hashed against the pin,
// before they take the path's name.
func (r *Runner) remotePut(ctx context.Context, p *Put) error {
	e, err := r.getRemote(ctx, p.Remote, RemoteLimit)
	if err != nil {
		return err
	}
	defer e.Close()
	out := *p
	out.Content, out.Body, out.SHA512 = nil, &Body{From: e.File, Size: e.Size}, e.SHA512
	return r.Host.Put(ctx, &out)
}

// Extract is an extract operation's arguments: the fetched archive
// (Remote) unpacked into a new tree that takes Path's name (see
// internal/ops's extract script).
type Extract struct {
	Path   string
	Remote *Remote
	// Form is tar.gz or tar.xz; Strip the leading names stripped;
	// Provenance what the tree's sentinel records.
	Form, Strip, Provenance string
	// Mode, Owner and Group are the top directory's, as declared; an
	// empty one is kept from the tree replaced.
	Mode, Owner, Group string
}

// Extractor is a Host that extracts an archive of size bytes read from
// archive (their SHA-512 sha), streamed to the extract script: as root over
// SSH; locally as the operator, then under sudo when refused.
type Extractor interface {
	Extract(ctx context.Context, x *Extract, archive io.Reader, size int64, sha string) error
}

// prepareExtract resolves an extract step: its path, its remote content
// and its literal arguments (form, strip count, provenance).
func prepareExtract(ps PreparedStep, op *plan.Op, r resolver, c Context) (PreparedStep, error) {
	path, err := r.path("path", op.Path, c.Home)
	if err != nil {
		return PreparedStep{}, err
	}
	if path == "/" || op.From == nil || op.From.Type != declaration.ContentRemote || op.From.URL == nil || len(op.Args) != 3 {
		return PreparedStep{}, &PrepareError{ID: r.id, Msg: "the extract step wants a path, remote content and its form, strip count and provenance"}
	}
	rm, err := r.prepareRemote(op.From)
	if err != nil {
		return PreparedStep{}, err
	}
	ps.Extract = &Extract{Path: path, Remote: rm, Form: op.Args[0], Strip: op.Args[1], Provenance: op.Args[2], Mode: op.Mode, Owner: op.Owner, Group: op.Group}
	return ps, nil
}

// extract gets x's archive (from the cache or fetched into it, checked
// against the pin, at most RemoteLimit bytes) and streams it to the host;
// the script checks it against the entry's SHA-512 before it extracts.
func (r *Runner) extract(ctx context.Context, x *Extract) error {
	ex, ok := r.Host.(Extractor)
	if !ok {
		return Errorf(events.Permanent, "this host can't extract an archive; nothing was written")
	}
	e, err := r.getRemote(ctx, x.Remote, RemoteLimit)
	if err != nil {
		return err
	}
	defer e.Close()
	return ex.Extract(ctx, x, e.File, e.Size, e.SHA512)
}
