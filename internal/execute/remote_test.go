package execute

import (
	"bytes"
	"context"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/fetch"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// bodyHost is a Host whose put reads a streamed body through, as a host
// writes it, and keeps what it read.
type bodyHost struct {
	recorder
	got  []byte
	put  *Put
	puts int
}

func (h *bodyHost) Put(ctx context.Context, p *Put) error {
	h.puts++
	h.put = p
	first, err := io.ReadAll(p.Reader())
	if err != nil {
		return err
	}
	// Read again from the start, as a put refused natively is sent again.
	if h.got, err = io.ReadAll(p.Reader()); err == nil && !bytes.Equal(first, h.got) {
		err = errors.New("the body read twice gave two contents")
	}
	return err
}

// cachedRemote puts data in a content cache of its own and returns a
// runner fetching through it and the Remote its entry pins (the URL is
// never asked: the entry is a cache hit).
func cachedRemote(t *testing.T, data []byte) (*Runner, *bodyHost, *Remote) {
	t.Helper()
	cache := fetch.NewCache(filepath.Join(t.TempDir(), "files"))
	e, err := cache.Add(bytes.NewReader(data), "", 0)
	if err != nil {
		t.Fatal(err)
	}
	e.Close()
	h := &bodyHost{}
	f := fetch.New(cache, fetch.Options{})
	t.Cleanup(f.Close)
	return &Runner{Host: h, Fetch: f}, h, &Remote{Declared: "https://example.invalid/f", URL: "https://example.invalid/f", Pin: e.Blake3}
}

// TestRemotePutStreams: a remote file's put reaches the host as a Body
// over its cache entry (no bytes held in Content), with the entry's
// SHA-512 and length, and reads back whole from its start each time.
func TestRemotePutStreams(t *testing.T) {
	data := bytes.Repeat([]byte("zap streams "), 100_000)
	r, h, rm := cachedRemote(t, data)
	if err := r.remotePut(context.Background(), &Put{Path: "/x", Remote: rm}); err != nil {
		t.Fatal(err)
	}
	sum := sha512.Sum512(data)
	switch {
	case h.puts != 1:
		t.Fatalf("%d puts, want 1", h.puts)
	case h.put.Body == nil || h.put.Content != nil:
		t.Errorf("the put carries Content of %d bytes and Body %v; want the body only", len(h.put.Content), h.put.Body)
	case h.put.Len() != int64(len(data)) || h.put.SHA512 != hex.EncodeToString(sum[:]):
		t.Errorf("the put says %d bytes, SHA-512 %.16s…; want %d, %.16s…", h.put.Len(), h.put.SHA512, len(data), hex.EncodeToString(sum[:]))
	case !bytes.Equal(h.got, data):
		t.Errorf("the host read %d bytes, not the %d cached", len(h.got), len(data))
	}
}

// TestRemoteBound: an entry over the bound fails the step saying so, the
// host never asked; at the bound it is taken.
func TestRemoteBound(t *testing.T) {
	data := bytes.Repeat([]byte("z"), 4096)
	r, h, rm := cachedRemote(t, data)
	e, err := r.getRemote(context.Background(), rm, 4096)
	if err != nil {
		t.Fatalf("at the bound: %v", err)
	}
	e.Close()
	_, err = r.getRemote(context.Background(), rm, 4095)
	if err == nil || !strings.Contains(err.Error(), "https://example.invalid/f is 4096 bytes, more than 4095 bytes, the most a remote file or archive may be; nothing on the target was touched") {
		t.Errorf("over the bound: %v", err)
	}
	if h.puts != 0 {
		t.Errorf("the host was asked %d times", h.puts)
	}
}

// TestAptKeyOverOneMiBRefusedAtTheFetch: an apt_repo's signing key is
// bounded at 1 MiB when the wetrun gets it, as when its pin is minted, so
// a vendored pin over a larger key fails the step saying so, fetched or
// in the cache, with the host never asked; a key of 1 MiB is put.
func TestAptKeyOverOneMiBRefusedAtTheFetch(t *testing.T) {
	big := bytes.Repeat([]byte("k"), 1<<20+1)
	r, h, rm := cachedRemote(t, big)
	url := declaration.Lit(rm.URL)
	p := &plan.Plan{Changes: []plan.Change{{ID: "repo", Type: declaration.KindAptRepo, Action: plan.Create,
		Resource: declaration.Resource{Body: &declaration.AptRepo{}},
		Steps: []plan.Step{{Type: plan.StepOp, Op: &plan.Op{Name: plan.OpPut, Path: declaration.Lit("/etc/apt/keyrings/repo.asc"), Mode: "644",
			From: &declaration.Content{Type: declaration.ContentRemote, URL: &url, Blake3: rm.Pin}, Privilege: plan.Elevated}}}}}}
	pp, err := Prepare(p, func(string) (string, bool) { return "", false }, Context{Home: "/root", Root: true})
	if err != nil {
		t.Fatal(err)
	}
	put := pp.Changes[0].Steps[0].Put
	err = r.remotePut(context.Background(), put)
	if err == nil || !strings.Contains(err.Error(), "is 1048577 bytes, more than 1 MiB, the most an apt signing key may be; nothing on the target was touched") {
		t.Errorf("a cached key over 1 MiB: %v", err)
	}
	if h.puts != 0 {
		t.Errorf("the host was asked %d times", h.puts)
	}

	// Not in the cache: the fetch itself stops at the bound.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write(big) }))
	defer srv.Close()
	f := fetch.New(fetch.NewCache(filepath.Join(t.TempDir(), "files")), fetch.Options{})
	defer f.Close()
	r.Fetch = f
	put.Remote.URL, put.Remote.Declared = srv.URL+"/key.asc", srv.URL+"/key.asc"
	err = r.remotePut(context.Background(), put)
	if err == nil || !strings.Contains(err.Error(), "an apt signing key may be at most 1 MiB; nothing on the target was touched") {
		t.Errorf("a fetched key over 1 MiB: %v", err)
	}
	if h.puts != 0 {
		t.Errorf("the host was asked %d times", h.puts)
	}

	// At the bound: put.
	r, h, rm = cachedRemote(t, big[:1<<20])
	put.Remote.URL, put.Remote.Declared, put.Remote.Pin = rm.URL, rm.Declared, rm.Pin
	if err := r.remotePut(context.Background(), put); err != nil || h.puts != 1 {
		t.Errorf("a key of 1 MiB: %v, %d puts", err, h.puts)
	}
}
