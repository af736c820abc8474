package execute

import (
	"bytes"
	"context"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/fetch"
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
	if err == nil || !strings.Contains(err.Error(), "https://example.invalid/f is 4096 bytes, more than 4095, the most a remote file or archive may be; nothing on the target was touched") {
		t.Errorf("over the bound: %v", err)
	}
	if h.puts != 0 {
		t.Errorf("the host was asked %d times", h.puts)
	}
}
