package fetch

import (
	"context"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"time"

	"github.com/zeebo/blake3"
)

// The bounds Options' zero values take.
const (
	DefaultMaxBytes       = 1 << 30 // 1 GiB
	DefaultTimeout        = 10 * time.Minute
	DefaultConnectTimeout = 30 * time.Second
	DefaultTLSTimeout     = 15 * time.Second
	DefaultHeaderTimeout  = time.Minute
	DefaultMaxRedirects   = 10
	DefaultReadBytes      = 1 << 20 // 1 MiB: Read's bound, held in memory
)

// Options are a Fetcher's bounds and its way to the network. The zero
// value is the defaults, the system's roots, direct connections.
type Options struct {
	MaxBytes       int64         // a body's size bound, unless a Request sets its own
	Timeout        time.Duration // the whole fetch: connecting, redirects, the body
	ConnectTimeout time.Duration // one TCP connect
	TLSTimeout     time.Duration // one TLS handshake
	HeaderTimeout  time.Duration // from a request sent to its response's headers
	MaxRedirects   int

	// TLS, when set, is the TLS configuration to start from (its RootCAs
	// are what tests trust). Certificates are always verified: its
	// InsecureSkipVerify is ignored.
	TLS *tls.Config
	// Dial, when set, makes the connections https:// URLs need (a test
	// points a name at a local server with it). Plain http:// always goes
	// through the loopback-only dialer.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Proxy, when set, is the proxy of https:// requests
	// (http.ProxyFromEnvironment, say); plain http:// never takes one.
	Proxy func(*http.Request) (*url.URL, error)
}

// Request is one fetch.
type Request struct {
	// Declared is the URL as the config declares it, references
	// unresolved: the only spelling of the URL any error holds.
	Declared string
	// URL is the resolved URL fetched.
	URL string
	// Bearer, when not empty, is the resolved credential sent as
	// "Authorization: Bearer <Bearer>" to URL's own origin only. The caller
	// refuses an empty resolution before it gets here.
	Bearer string
	// Pin, when not empty, is the blake3 the bytes must hash to (64
	// lowercase hex); empty is trust on first fetch.
	Pin string
	// Limit, when positive, is this fetch's size bound (an apt key's is
	// 1 MiB) instead of Options.MaxBytes (Fetch) or DefaultReadBytes (Read).
	Limit int64
	// Check, when set, runs on the fetched bytes at a private temporary
	// path once they hash to the pin, before they take their name in the
	// cache (a minisign verification); its error leaves nothing cached and
	// is returned wrapped in *Error. Fetch's only.
	Check func(path string) error
}

// Fetcher fetches URLs into a Cache under its Options. It is safe for
// concurrent use and keeps connections for reuse until Close.
type Fetcher struct {
	cache  *Cache
	o      Options
	secure *http.Transport // https://
	plain  *http.Transport // http:// to loopback
}

// New is a Fetcher putting what it fetches in cache (which Read doesn't
// need: it may be nil for a Fetcher that only reads).
func New(cache *Cache, o Options) *Fetcher {
	o = withDefaults(o)
	tlsConf := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.TLS != nil {
		tlsConf = o.TLS.Clone()
		tlsConf.InsecureSkipVerify = false
	}
	dial := o.Dial
	if dial == nil {
		dial = (&net.Dialer{Timeout: o.ConnectTimeout}).DialContext
	}
	loopback := &net.Dialer{Timeout: o.ConnectTimeout, Control: loopbackOnly}
	// DisableCompression: the bytes hashed are the bytes served, never a
	// transport's decoding of them.
	return &Fetcher{
		cache: cache,
		o:     o,
		secure: &http.Transport{
			Proxy:                 o.Proxy,
			DialContext:           dial,
			TLSClientConfig:       tlsConf,
			TLSHandshakeTimeout:   o.TLSTimeout,
			ResponseHeaderTimeout: o.HeaderTimeout,
			DisableCompression:    true,
			ForceAttemptHTTP2:     true,
			IdleConnTimeout:       90 * time.Second,
		},
		plain: &http.Transport{
			DialContext:           loopback.DialContext,
			ResponseHeaderTimeout: o.HeaderTimeout,
			DisableCompression:    true,
			IdleConnTimeout:       90 * time.Second,
		},
	}
}

func withDefaults(o Options) Options {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.Timeout, DefaultTimeout)
	def(&o.ConnectTimeout, DefaultConnectTimeout)
	def(&o.TLSTimeout, DefaultTLSTimeout)
	def(&o.HeaderTimeout, DefaultHeaderTimeout)
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxRedirects <= 0 {
		o.MaxRedirects = DefaultMaxRedirects
	}
	return o
}

// Close closes the connections kept for reuse.
func (f *Fetcher) Close() {
	f.secure.CloseIdleConnections()
	f.plain.CloseIdleConnections()
}

// Fetch returns r's content as a cache entry. With a pin, an entry already
// in the cache is returned with no network (a corrupt one is fetched
// again), and fetched bytes are checked against the pin before anything
// is cached or returned. Without one, the bytes are cached under their
// blake3, which the entry names. Every error is an *Error.
func (f *Fetcher) Fetch(ctx context.Context, r Request) (*Entry, error) {
	if r.Pin != "" {
		e, err := f.cache.Open(r.Pin)
		switch {
		case err == nil:
			return e, nil
		case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, ErrCorrupt):
			return nil, &Error{URL: r.Declared, Err: err}
		}
	}
	var e *Entry
	err := f.get(ctx, r, func(body io.Reader) (err error) {
		e, err = f.cache.add(body, r.Pin, f.limit(r), r.Check)
		return err
	})
	return e, err
}

// Read fetches r's content into memory, checked against r.Pin when it is
// set, and returns it with its blake3; nothing is cached (a signature).
// r.Check is not run. Every error is an *Error.
func (f *Fetcher) Read(ctx context.Context, r Request) (data []byte, sum string, err error) {
	if r.Limit <= 0 {
		r.Limit = DefaultReadBytes
	}
	err = f.get(ctx, r, func(body io.Reader) error {
		limit := r.Limit
		b, err := io.ReadAll(io.LimitReader(body, limit+1))
		if err != nil {
			return err
		}
		if int64(len(b)) > limit {
			return tooLarge(limit)
		}
		h := blake3.Sum256(b)
		got := hex.EncodeToString(h[:])
		if r.Pin != "" && got != r.Pin {
			return &MismatchError{Want: r.Pin, Got: got}
		}
		data, sum = b, got
		return nil
	})
	return data, sum, err
}

func (f *Fetcher) limit(r Request) int64 {
	if r.Limit > 0 {
		return r.Limit
	}
	return f.o.MaxBytes
}

// errTimeLimit is the cause of a fetch's context ending at Options.Timeout.
var errTimeLimit = errors.New("the fetch's time limit")

// get makes r's request under the rules and bounds and hands a 200's body
// to sink. Every error is an *Error naming r.Declared.
func (f *Fetcher) get(ctx context.Context, r Request, sink func(io.Reader) error) error {
	fail := func(err error) error { return &Error{URL: r.Declared, Err: err} }
	u, err := parseURL(r.URL)
	if err != nil {
		return fail(err)
	}
	if err := checkBearer(r.Bearer); err != nil {
		return fail(err)
	}
	s := newScrubber(r.Declared, u, r.URL, r.Bearer)
	ctx, cancel := context.WithTimeoutCause(ctx, f.o.Timeout, errTimeLimit)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return fail(fmt.Errorf("%w: the URL doesn't make a request", ErrRefused))
	}
	req.Header.Set("User-Agent", "zap")
	client := &http.Client{
		Transport:     &router{f: f, origin: origin(u), bearer: r.Bearer},
		CheckRedirect: f.checkRedirect,
	}
	resp, err := client.Do(req)
	if err != nil {
		return fail(f.failure(ctx, err, s))
	}
	defer resp.Body.Close()
	limit := f.limit(r)
	switch {
	case resp.StatusCode != http.StatusOK:
		return fail(fmt.Errorf("%w: the server answered %d %s", ErrStatus, resp.StatusCode, http.StatusText(resp.StatusCode)))
	case resp.ContentLength > limit:
		return fail(fmt.Errorf("%w: the server announced %d bytes, more than the size bound of %d", ErrTooLarge, resp.ContentLength, limit))
	}
	body := &bodyReader{ctx: ctx, r: resp.Body}
	if err := sink(body); err != nil {
		if body.err != nil {
			return fail(f.failure(ctx, body.err, s))
		}
		return fail(err)
	}
	return nil
}

// failure is a network error as a fetch reports it: the total time limit
// in Zap's words, a refusal of Zap's own as it was made, anything else
// scrubbed of the resolved URL and the credential.
func (f *Fetcher) failure(ctx context.Context, err error, s scrubber) error {
	if errors.Is(context.Cause(ctx), errTimeLimit) {
		return fmt.Errorf("%w: not done within the time limit of %v", ErrTimeout, f.o.Timeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // its text repeats the URL
	}
	var p policy
	if errors.As(err, &p) {
		return p.error
	}
	var kind error
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		kind = ErrTimeout
	}
	return &scrubbed{err: err, kind: kind, msg: s.scrub(err.Error())}
}

// policy is a refusal in Zap's own words, which hold nothing of the
// resolved URL.
type policy struct{ error }

// checkRedirect follows a redirect only to https://, or to http:// on
// loopback when every URL before it was on loopback, and at most
// MaxRedirects of them.
func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	n := len(via)
	if n > f.o.MaxRedirects {
		return policy{fmt.Errorf("%w: more than %d redirects", ErrRefused, f.o.MaxRedirects)}
	}
	if err := checkShape(req.URL); err != nil {
		return policy{fmt.Errorf("redirect %d: %w", n, err)}
	}
	switch req.URL.Scheme {
	case "https":
		return nil
	case "http":
		if LoopbackHost(req.URL.Hostname()) && stayedOnLoopback(via) {
			return nil
		}
		return policy{fmt.Errorf("%w: redirect %d leads to plain http:// (a redirect is followed only to https://, or on loopback by a fetch that stayed there)", ErrRefused, n)}
	}
	return policy{fmt.Errorf("%w: redirect %d leads to a scheme other than https://", ErrRefused, n)}
}

func stayedOnLoopback(reqs []*http.Request) bool {
	for _, r := range reqs {
		if !LoopbackHost(r.URL.Hostname()) {
			return false
		}
	}
	return true
}

// router sends each request, the first and every redirect's, through the
// transport of its scheme, with the credential only on the declared
// origin and no Referer (which would carry the previous URL, a token in
// its query included, to the next origin).
type router struct {
	f      *Fetcher
	origin string
	bearer string
}

func (rt *router) RoundTrip(req *http.Request) (*http.Response, error) {
	var t *http.Transport
	switch {
	case req.URL.Scheme == "https":
		t = rt.f.secure
	case req.URL.Scheme == "http" && LoopbackHost(req.URL.Hostname()):
		t = rt.f.plain
	default:
		return nil, policy{fmt.Errorf("%w: a request that isn't https:// or http:// to loopback", ErrRefused)}
	}
	req = req.Clone(req.Context())
	req.Header.Del("Referer")
	req.Header.Del("Authorization")
	if rt.bearer != "" && origin(req.URL) == rt.origin {
		req.Header.Set("Authorization", "Bearer "+rt.bearer)
	}
	return t.RoundTrip(req)
}

// checkBearer refuses a credential a header can't carry as it is: anything
// but printable ASCII without a space. The credential isn't named.
func checkBearer(b string) error {
	for i := 0; i < len(b); i++ {
		if b[i] <= ' ' || b[i] > '~' {
			return fmt.Errorf("%w: the bearer credential holds a character a header can't carry", ErrRefused)
		}
	}
	return nil
}

// loopbackOnly is the plain-http dialer's check, made on the address a
// name resolved to before the connect: only a loopback address.
func loopbackOnly(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("%w: a plain http:// connection goes only to a loopback address", ErrRefused)
	}
	return nil
}

// bodyReader remembers the error reading a body gave, so a sink's failure
// tells the network's from its own. An end of the body that comes once
// the fetch's context has ended is that ending, not the end: the transport
// can report a body cut short by a cancelled request as io.EOF, and a
// truncated body must not be pinned.
type bodyReader struct {
	ctx context.Context
	r   io.Reader
	err error
}

func (b *bodyReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err == io.EOF && b.ctx.Err() != nil {
		err = b.ctx.Err()
	}
	if err != nil && err != io.EOF {
		b.err = err
	}
	return n, err
}
