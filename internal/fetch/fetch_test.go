package fetch

import (
	"context"
	"crypto/sha512"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/zeebo/blake3"
)

// The canaries: a bearer credential and a token in the resolved URL's
// query. No error any test sees may hold either (errText), nor any path.
const (
	canaryBearer = "CANARYbearer7f3a9c"
	canaryQuery  = "CANARYquery5d21e8"
)

// errText is err's message, failing the test when there is none, when it
// isn't an *Error, or when it holds a canary.
func errText(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	if _, ok := errors.AsType[*Error](err); !ok {
		t.Errorf("%v (%T) is not an *Error", err, err)
	}
	msg := err.Error()
	for _, c := range []string{canaryBearer, canaryQuery} {
		if strings.Contains(msg, c) {
			t.Errorf("error %q holds the canary %s", msg, c)
		}
	}
	return msg
}

func sum(b string) string {
	h := blake3.Sum256([]byte(b))
	return hex.EncodeToString(h[:])
}

// server is an httptest server of the test's, closed at its end, whose
// requests are counted and whose last request's headers are kept.
type server struct {
	*httptest.Server
	mu   sync.Mutex
	hits int
	last http.Header
}

func (s *server) seen() (int, http.Header) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits, s.last
}

func newServer(t *testing.T, tlsOn bool, h http.HandlerFunc) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits++
		s.last = r.Header.Clone()
		s.mu.Unlock()
		h(w, r)
	}))
	if tlsOn {
		s.StartTLS()
	} else {
		s.Start()
	}
	t.Cleanup(s.Close)
	return s
}

// files serves body at every path, and /to?u=URL as a 302 to URL.
func files(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if to := r.URL.Query().Get("u"); to != "" {
			http.Redirect(w, r, to, http.StatusFound)
			return
		}
		io.WriteString(w, body)
	}
}

// newFetcher is a Fetcher trusting the test servers' certificate (every
// httptest TLS server has the same one), caching in a new directory, and
// dialing every name (example.com:443) at named, when it isn't nil.
func newFetcher(t *testing.T, named *server, o Options) (*Fetcher, *Cache) {
	t.Helper()
	cert, err := x509.ParseCertificate(testCert(t))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	o.TLS = &tls.Config{RootCAs: pool}
	if named != nil {
		addr := named.Listener.Addr().String()
		o.Dial = func(ctx context.Context, network, a string) (net.Conn, error) {
			if host, _, _ := net.SplitHostPort(a); net.ParseIP(host) == nil {
				a = addr
			}
			return (&net.Dialer{}).DialContext(ctx, network, a)
		}
	}
	c := NewCache(filepath.Join(t.TempDir(), "cache", "files"))
	f := New(c, o)
	t.Cleanup(f.Close)
	return f, c
}

var (
	certOnce sync.Once
	certDER  []byte
)

// testCert is the certificate httptest's TLS servers present.
func testCert(t *testing.T) []byte {
	certOnce.Do(func() {
		s := httptest.NewTLSServer(http.NotFoundHandler())
		certDER = s.Certificate().Raw
		s.Close()
	})
	return certDER
}

// request asks for path on example.com (mapped by newFetcher), declared
// with its token as a reference and resolved with the canaries.
func request(path string) Request {
	return Request{
		Declared: "https://example.com" + path + "?token=${TOKEN}",
		URL:      "https://example.com" + path + "?token=" + canaryQuery,
		Bearer:   canaryBearer,
	}
}

// served is a TLS server serving body, a Fetcher reaching it as
// example.com, its cache, and a request for path pinned to body.
func served(t *testing.T, body, path string) (*server, *Fetcher, *Cache, Request) {
	t.Helper()
	s := newServer(t, true, files(body))
	f, c := newFetcher(t, s, Options{})
	r := request(path)
	r.Pin = sum(body)
	return s, f, c, r
}

// at is r fetched from base (a test server's URL) instead.
func at(r Request, base string) Request {
	r.URL = strings.Replace(r.URL, "https://example.com", base, 1)
	return r
}

func readEntry(t *testing.T, e *Entry) string {
	t.Helper()
	defer e.Close()
	b, err := io.ReadAll(e.File)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// entries lists the cache directory, failing on a name holding a canary.
func entries(t *testing.T, c *Cache) []string {
	t.Helper()
	des, err := os.ReadDir(c.Dir())
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		if strings.Contains(de.Name(), "CANARY") {
			t.Errorf("cache name %s holds a canary", de.Name())
		}
		names = append(names, de.Name())
	}
	return names
}

func TestFetchHTTPSWithAndWithoutPin(t *testing.T) {
	t.Parallel()
	body := "hello, pinned world\n"
	s := newServer(t, true, files(body))
	f, c := newFetcher(t, s, Options{})
	ctx := context.Background()

	e, err := f.Fetch(ctx, request("/hello.txt"))
	if err != nil {
		t.Fatal(err)
	}
	s512 := sha512.Sum512([]byte(body))
	if e.Blake3 != sum(body) || e.SHA512 != hex.EncodeToString(s512[:]) || e.Size != int64(len(body)) {
		t.Errorf("entry %+v, want blake3 %s, its sha512 and size %d", e, sum(body), len(body))
	}
	if got := readEntry(t, e); got != body {
		t.Errorf("entry holds %q", got)
	}
	if _, h := s.seen(); h.Get("Authorization") != "Bearer "+canaryBearer {
		t.Errorf("the server saw Authorization %q", h.Get("Authorization"))
	}
	if names := entries(t, c); len(names) != 1 || names[0] != sum(body) {
		t.Errorf("cache holds %v, want only %s", names, sum(body))
	}
	for path, want := range map[string]os.FileMode{c.Dir(): 0o700, filepath.Join(c.Dir(), sum(body)): 0o600} {
		if fi, err := os.Lstat(path); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v, mode %v, want %o", path, err, fi.Mode(), want)
		}
	}

	// With the pin, the cached entry answers: no second request.
	r := request("/hello.txt")
	r.Pin = sum(body)
	if e, err = f.Fetch(ctx, r); err != nil || readEntry(t, e) != body {
		t.Fatalf("pinned fetch: %v", err)
	}
	if hits, _ := s.seen(); hits != 1 {
		t.Errorf("the pinned fetch of a cached entry made %d requests in all, want 1", hits)
	}
	// With the pin and a fresh cache, the fetched bytes are checked and kept.
	f2, c2 := newFetcher(t, s, Options{})
	if e, err = f2.Fetch(ctx, r); err != nil || readEntry(t, e) != body {
		t.Fatalf("pinned fetch into a fresh cache: %v", err)
	}
	if names := entries(t, c2); len(names) != 1 {
		t.Errorf("fresh cache holds %v", names)
	}
}

func TestFetchPinMismatchCachesNothing(t *testing.T) {
	t.Parallel()
	_, f, c, r := served(t, "what the server has today", "/tool.tar.gz")
	r.Pin = sum("what was pinned")
	_, err := f.Fetch(context.Background(), r)
	msg := errText(t, err)
	var m *MismatchError
	if !errors.Is(err, ErrMismatch) || !errors.As(err, &m) || m.Want != r.Pin || m.Got != sum("what the server has today") {
		t.Errorf("error %v, want a mismatch of %s and the served bytes' blake3", err, r.Pin)
	}
	if !strings.HasPrefix(msg, "fetch "+r.Declared+": ") || !strings.Contains(msg, m.Want) || !strings.Contains(msg, m.Got) {
		t.Errorf("message %q doesn't name the declared URL, expected and got", msg)
	}
	if names := entries(t, c); len(names) != 0 {
		t.Errorf("a mismatch left %v in the cache", names)
	}
}

func TestFetchPlainHTTPOnlyToLoopback(t *testing.T) {
	t.Parallel()
	s := newServer(t, false, files("from a local mirror"))
	f, _ := newFetcher(t, nil, Options{ConnectTimeout: 5 * time.Second})
	ctx := context.Background()
	port := s.Listener.Addr().(*net.TCPAddr).Port
	for _, u := range []string{s.URL + "/m", fmt.Sprintf("http://localhost:%d/m", port), fmt.Sprintf("http://LocalHost:%d/m", port)} {
		e, err := f.Fetch(ctx, Request{Declared: u, URL: u})
		if err != nil {
			t.Errorf("%s: %v", u, err)
			continue
		}
		if got := readEntry(t, e); got != "from a local mirror" {
			t.Errorf("%s: %q", u, got)
		}
	}
	// This machine's own address off loopback, with a listener on it: a
	// connection tried there would be in the listener's queue when the
	// fetch returns. 192.0.2.1 (TEST-NET-1) routes nowhere.
	off, offAccepted := offLoopbackListener(t)
	for _, u := range []string{"http://" + off + "/m", "http://192.0.2.1/m", "http://example.com/m", "http://127.1/m", "http://localhost./m"} {
		_, err := f.Fetch(ctx, Request{Declared: u, URL: u})
		if msg := errText(t, err); !errors.Is(err, ErrRefused) || !strings.Contains(msg, "loopback") {
			t.Errorf("%s: %v, want refused for not being loopback", u, err)
		}
	}
	if offAccepted() {
		t.Errorf("http://%s/m: refused after a connection was made to it", off)
	}
}

// offLoopbackListener listens on this machine's first IPv4 address off
// loopback and returns its host:port and what reports whether a connection
// has reached it (one queued to accept, or accepted); it skips the test
// where the machine has no such address.
func offLoopbackListener(t *testing.T) (string, func() bool) {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	var ip net.IP
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() {
			ip = n.IP
			break
		}
	}
	if ip == nil {
		t.Skip("this machine has no IPv4 address off loopback to listen on")
	}
	l, err := net.ListenTCP("tcp4", &net.TCPAddr{IP: ip})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l.Addr().String(), func() bool {
		// A connection the kernel completed is queued by now: one accept
		// on the non-blocking socket takes it, or says none is there.
		rc, err := l.SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		queued := false
		if err := rc.Control(func(fd uintptr) {
			nfd, _, err := syscall.Accept(int(fd))
			if err == nil {
				syscall.Close(nfd)
				queued = true
			}
		}); err != nil {
			t.Fatal(err)
		}
		return queued
	}
}

func TestLoopbackOnlyDialsLoopbackAddresses(t *testing.T) {
	t.Parallel()
	for addr, ok := range map[string]bool{
		"127.0.0.1:80": true, "127.9.9.9:8080": true, "[::1]:80": true,
		"192.0.2.1:80": false, "[2001:db8::1]:80": false, "10.0.0.1:80": false, "garbage": false,
	} {
		if err := loopbackOnly("tcp", addr, nil); (err == nil) != ok {
			t.Errorf("loopbackOnly(%s) = %v, want ok %v", addr, err, ok)
		}
	}
}

func TestFetchRefusesURLsAndCredentials(t *testing.T) {
	t.Parallel()
	s := newServer(t, true, files("x"))
	f, _ := newFetcher(t, s, Options{})
	port := s.Listener.Addr().(*net.TCPAddr).Port
	for _, c := range []struct{ url, bearer, want string }{
		{fmt.Sprintf("https://ops:%s@127.0.0.1:%d/x", canaryQuery, port), "", "user:password@"},
		{fmt.Sprintf("https://%s@127.0.0.1:%d/x", canaryQuery, port), "", "user:password@"},
		{"ftp://example.com/x", "", "only https://"},
		{"file:///etc/passwd", "", "only https://"},
		{"https:///x", "", "no host"},
		{"https://example.com:99999/x", "", "port"},
		{"https://example.com/x\n" + canaryQuery, "", "doesn't parse"},
		{"https://example.com/x", canaryBearer + "\r\nX-Evil: 1", "bearer credential"},
		{"https://example.com/x", canaryBearer + " ", "bearer credential"},
	} {
		_, err := f.Fetch(context.Background(), Request{Declared: "https://example.com/x?${URL}", URL: c.url, Bearer: c.bearer})
		if msg := errText(t, err); !errors.Is(err, ErrRefused) || !strings.Contains(msg, c.want) {
			t.Errorf("%q: %v, want refused with %q", c.url, err, c.want)
		}
	}
	if hits, _ := s.seen(); hits != 0 {
		t.Errorf("refused URLs made %d requests", hits)
	}
}

func TestFetchRedirects(t *testing.T) {
	t.Parallel()
	other := newServer(t, true, files("from another origin"))
	plain := newServer(t, false, files("plain"))
	s := newServer(t, true, func(w http.ResponseWriter, r *http.Request) {
		if n, ok := strings.CutPrefix(r.URL.Path, "/loop/"); ok {
			http.Redirect(w, r, "/loop/"+n+"x", http.StatusFound)
			return
		}
		files("same origin")(w, r)
	})
	f, _ := newFetcher(t, s, Options{MaxRedirects: 3})
	ctx := context.Background()
	redirect := func(to string) Request {
		r := request("/to")
		r.Declared = "https://example.com/to?u=${REDIRECT}&token=${TOKEN}"
		r.URL = "https://example.com/to?u=" + url.QueryEscape(to) + "&token=" + canaryQuery
		return r
	}

	// A redirect on the same origin keeps the credential.
	if e, err := f.Fetch(ctx, redirect("/final")); err != nil || readEntry(t, e) != "same origin" {
		t.Fatalf("same origin: %v", err)
	}
	if hits, h := s.seen(); hits != 2 || h.Get("Authorization") != "Bearer "+canaryBearer {
		t.Errorf("same origin: %d requests, the last with Authorization %q", hits, h.Get("Authorization"))
	}
	// Another origin (the same host, another port) gets neither the
	// credential nor a Referer naming the URL with its token.
	if e, err := f.Fetch(ctx, redirect(other.URL+"/final")); err != nil || readEntry(t, e) != "from another origin" {
		t.Fatalf("another origin: %v", err)
	}
	if hits, h := other.seen(); hits != 1 || h.Get("Authorization") != "" || h.Get("Referer") != "" {
		t.Errorf("another origin: %d requests, the last with headers %v", hits, h)
	}
	// https (off loopback) to plain http: refused before a request is made.
	_, err := f.Fetch(ctx, redirect(plain.URL+"/final"))
	if msg := errText(t, err); !errors.Is(err, ErrRefused) || !strings.Contains(msg, "redirect 1 leads to plain http://") {
		t.Errorf("https to http: %v", err)
	}
	if hits, _ := plain.seen(); hits != 0 {
		t.Errorf("the refused redirect reached the plain server (%d requests)", hits)
	}
	// One past the bound.
	_, err = f.Fetch(ctx, request("/loop/x"))
	if msg := errText(t, err); !errors.Is(err, ErrRefused) || !strings.Contains(msg, "more than 3 redirects") {
		t.Errorf("a redirect loop: %v", err)
	}
	// A redirect's URL carries user:password@.
	_, err = f.Fetch(ctx, redirect("https://u:"+canaryQuery+"@example.com/final"))
	if msg := errText(t, err); !errors.Is(err, ErrRefused) || !strings.Contains(msg, "user:password@") {
		t.Errorf("a redirect to user:password@: %v", err)
	}
}

func TestFetchLoopbackRedirectsStayOnLoopback(t *testing.T) {
	t.Parallel()
	plain := newServer(t, false, files("plain"))
	secure := newServer(t, true, files("secure"))
	f, _ := newFetcher(t, nil, Options{})
	ctx := context.Background()
	port := plain.Listener.Addr().(*net.TCPAddr).Port
	for _, c := range []struct{ from, to, want string }{
		{plain.URL, plain.URL + "/final", "plain"},
		{plain.URL, fmt.Sprintf("http://localhost:%d/final", port), "plain"},
		{secure.URL, plain.URL + "/final", "plain"}, // https on loopback stayed there
		{plain.URL, secure.URL + "/final", "secure"},
	} {
		u := c.from + "/to?u=" + url.QueryEscape(c.to)
		e, err := f.Fetch(ctx, Request{Declared: u, URL: u})
		if err != nil {
			t.Errorf("%s -> %s: %v", c.from, c.to, err)
			continue
		}
		if got := readEntry(t, e); got != c.want {
			t.Errorf("%s -> %s: %q", c.from, c.to, got)
		}
	}
}

func TestFetchSizeBound(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 100)
	s := newServer(t, true, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/chunked" {
			w.(http.Flusher).Flush() // no Content-Length
		}
		io.WriteString(w, big)
	})
	f, c := newFetcher(t, s, Options{MaxBytes: 10})
	for path, want := range map[string]string{
		"/sized":   "the server announced 100 bytes, more than the size bound of 10",
		"/chunked": "more than 10 bytes, the size bound",
	} {
		_, err := f.Fetch(context.Background(), request(path))
		if msg := errText(t, err); !errors.Is(err, ErrTooLarge) || !strings.Contains(msg, want) {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
		r := request(path)
		r.Limit = 100
		if e, err := f.Fetch(context.Background(), r); err != nil || readEntry(t, e) != big {
			t.Errorf("%s with its own bound of 100: %v", path, err)
		}
	}
	if names := entries(t, c); len(names) != 1 {
		t.Errorf("cache holds %v, want the one fetch within its bound", names)
	}
}

func TestFetchTimeBounds(t *testing.T) {
	t.Parallel()
	s := newServer(t, true, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow-body" {
			io.WriteString(w, "a start")
			w.(http.Flusher).Flush()
		}
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	ctx := context.Background()
	f, c := newFetcher(t, s, Options{Timeout: 300 * time.Millisecond})
	start := time.Now()
	_, err := f.Fetch(ctx, request("/slow-body"))
	if msg := errText(t, err); !errors.Is(err, ErrTimeout) || !strings.Contains(msg, "time limit of 300ms") {
		t.Errorf("a slow body: %v", err)
	}
	if names := entries(t, c); len(names) != 0 {
		t.Errorf("a body cut short by the time limit left %v in the cache", names)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the time limit took %v", d)
	}
	f, _ = newFetcher(t, s, Options{HeaderTimeout: 200 * time.Millisecond})
	_, err = f.Fetch(ctx, request("/slow-headers"))
	if msg := errText(t, err); !errors.Is(err, ErrTimeout) || !strings.Contains(msg, "response headers") {
		t.Errorf("slow headers: %v", err)
	}
}

func TestFetchStatusAndTLS(t *testing.T) {
	t.Parallel()
	s := newServer(t, true, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no: "+r.Header.Get("Authorization"), http.StatusUnauthorized)
	})
	f, _ := newFetcher(t, s, Options{})
	_, err := f.Fetch(context.Background(), request("/private"))
	if msg := errText(t, err); !errors.Is(err, ErrStatus) || !strings.Contains(msg, "401 Unauthorized") {
		t.Errorf("401: %v", err)
	}
	// Without the test root the certificate doesn't verify, whatever the
	// configuration says; the message has the resolved host scrubbed.
	plainFetcher := New(NewCache(t.TempDir()), Options{TLS: &tls.Config{InsecureSkipVerify: true}})
	t.Cleanup(plainFetcher.Close)
	r := at(request("/x"), s.URL)
	_, err = plainFetcher.Fetch(context.Background(), r)
	msg := errText(t, err)
	if !strings.Contains(msg, "certificate") || strings.Contains(msg, s.Listener.Addr().String()) {
		t.Errorf("an unknown authority: %q, want a certificate error without the resolved host", msg)
	}
}

func TestFetchErrorHidesAResolvedHost(t *testing.T) {
	t.Parallel()
	s := newServer(t, true, files("x"))
	f, _ := newFetcher(t, s, Options{})
	// The certificate is for example.com: the TLS error names the host
	// dialed, which came from a reference.
	r := Request{Declared: "https://${HOST}/x", URL: "https://" + canaryQuery + ".example.net/x", Bearer: canaryBearer}
	_, err := f.Fetch(context.Background(), r)
	msg := errText(t, err)
	if !strings.Contains(msg, "certificate") || !strings.Contains(msg, redacted) {
		t.Errorf("a certificate for another host: %q, want the host as %s", msg, redacted)
	}
}

func TestFetchCheckRunsBeforeCaching(t *testing.T) {
	t.Parallel()
	s := newServer(t, true, files("signed bytes"))
	f, c := newFetcher(t, s, Options{})
	bad := errors.New("signature doesn't verify")
	r := request("/src.tar.gz")
	var seen string
	r.Check = func(path string) error {
		b, err := os.ReadFile(path)
		seen = string(b)
		if filepath.Dir(path) != c.Dir() || err != nil {
			t.Errorf("Check got %s (%v), not a file in the cache directory", path, err)
		}
		return bad
	}
	_, err := f.Fetch(context.Background(), r)
	if errText(t, err); !errors.Is(err, bad) || seen != "signed bytes" {
		t.Errorf("a failed check: %v, having seen %q", err, seen)
	}
	if names := entries(t, c); len(names) != 0 {
		t.Errorf("a failed check left %v", names)
	}
}

func TestReadKeepsNothing(t *testing.T) {
	t.Parallel()
	s := newServer(t, true, files("untrusted comment: signature\n"))
	f, c := newFetcher(t, s, Options{})
	data, got, err := f.Read(context.Background(), request("/src.tar.gz.minisig"))
	if err != nil || string(data) != "untrusted comment: signature\n" || got != sum(string(data)) {
		t.Errorf("Read: %q, %s, %v", data, got, err)
	}
	r := request("/src.tar.gz.minisig")
	r.Pin = sum("another")
	if _, _, err := f.Read(context.Background(), r); errText(t, err) == "" || !errors.Is(err, ErrMismatch) {
		t.Errorf("Read with the wrong pin: %v", err)
	}
	r.Pin, r.Limit = "", 5
	if _, _, err := f.Read(context.Background(), r); errText(t, err) == "" || !errors.Is(err, ErrTooLarge) {
		t.Errorf("Read over its bound: %v", err)
	}
	if names := entries(t, c); len(names) != 0 {
		t.Errorf("Read cached %v", names)
	}
}

func TestScrubReplacesResolvedPieces(t *testing.T) {
	t.Parallel()
	raw := "https://secret-host.example:8443/p/" + canaryQuery + "?t=" + canaryQuery
	u, err := parseURL(raw)
	if err != nil {
		t.Fatal(err)
	}
	s := newScrubber("${URL}", u, raw, canaryBearer)
	msg := s.scrub("lookup secret-host.example: no such host; tls: secret-host.example:8443 " + raw + " " + canaryBearer)
	if strings.Contains(msg, "secret-host") || strings.Contains(msg, "CANARY") {
		t.Errorf("scrubbed: %q", msg)
	}
	// A piece too short to hide anything stays, as do the words around it.
	s = newScrubber("${URL}", mustParse(t, "https://example.com/"), "https://example.com/", "")
	if msg := s.scrub("net/http: timeout awaiting response headers"); msg != "net/http: timeout awaiting response headers" {
		t.Errorf("a path / scrubbed: %q", msg)
	}
	// A piece the declared spelling shows stays.
	s = newScrubber("https://example.com/p?t=${T}", mustParse(t, "https://example.com/p?t="+canaryQuery), "", "")
	if msg := s.scrub("lookup example.com: no such host"); msg != "lookup example.com: no such host" {
		t.Errorf("declared host scrubbed: %q", msg)
	}
}

func mustParse(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := parseURL(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
