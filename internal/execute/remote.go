package execute

import (
	"bytes"
	"context"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"github.com/zeebo/blake3"

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
}

// Fetcher gets pinned bytes: from the content cache, or fetched into it
// (internal/fetch's Fetcher).
type Fetcher interface {
	Fetch(ctx context.Context, req fetch.Request) (*fetch.Entry, error)
}

// RemoteLimit is the largest remote file a put places whole (extract
// none): its bytes are held in memory while they are written.
const RemoteLimit = 64 << 20

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
// content cache, or fetched into it, and hashed again as they are read. A
// fetch that fails or bytes that aren't the pin's fail the step before the
// target is touched.
func (r *Runner) getRemote(ctx context.Context, rm *Remote, limit int64) (*fetch.Entry, error) {
	if r.Fetch == nil {
		return nil, Errorf(events.Permanent, "this run can't fetch remote content; nothing was written")
	}
	e, err := r.Fetch.Fetch(ctx, fetch.Request{Declared: rm.Declared, URL: rm.URL, Bearer: rm.Bearer, Pin: rm.Pin, Limit: limit})
	if err != nil {
		return nil, Errorf(fetchCode(err), "%v; nothing on the target was touched", err)
	}
	return e, nil
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

// remotePut returns put p with its remote content's bytes as its content,
// held to RemoteLimit and checked against the pin once more as they are
// read from the cache.
func (r *Runner) remotePut(ctx context.Context, p *Put) (*Put, error) {
	e, err := r.getRemote(ctx, p.Remote, RemoteLimit)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	var buf bytes.Buffer
	b3, s5 := blake3.New(), sha512.New()
	n, err := io.Copy(io.MultiWriter(&buf, b3, s5), io.LimitReader(e.File, RemoteLimit+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("read the fetched bytes of %s: %w; nothing was written", p.Remote.Declared, err)
	case n > RemoteLimit:
		return nil, Errorf(events.Permanent, "%s is larger than %d MiB, the most a remote file or archive may be; nothing was written", p.Remote.Declared, RemoteLimit>>20)
	}
	if got := hex.EncodeToString(b3.Sum(nil)); got != p.Remote.Pin {
		return nil, Errorf(events.Permanent, "%v; nothing on the target was touched", &fetch.MismatchError{Want: p.Remote.Pin, Got: got})
	}
	out := *p
	out.Content, out.SHA512 = buf.Bytes(), hex.EncodeToString(s5.Sum(nil))
	return &out, nil
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

// ExtractLimit is the largest archive an extract takes: streamed from the
// content cache, never held whole.
const ExtractLimit = fetch.DefaultMaxBytes

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
// against the pin, at most ExtractLimit bytes) and streams it to the host;
// the script checks it against the entry's SHA-512 before it extracts.
func (r *Runner) extract(ctx context.Context, x *Extract) error {
	ex, ok := r.Host.(Extractor)
	if !ok {
		return Errorf(events.Permanent, "this host can't extract an archive; nothing was written")
	}
	e, err := r.getRemote(ctx, x.Remote, ExtractLimit)
	if err != nil {
		return err
	}
	defer e.Close()
	return ex.Extract(ctx, x, e.File, e.Size, e.SHA512)
}
