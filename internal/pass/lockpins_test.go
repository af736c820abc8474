package pass

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/fetch"
	"github.com/zap-go/zap/internal/lockhash"
	"github.com/zap-go/zap/internal/resolve"
	"github.com/zap-go/zap/pkg/declaration"
)

// TestMintingAnAptKeyOverOneMiBSaysTheKeyBound: minting the pin of an
// apt_repo's signing key larger than 1 MiB is refused (exit 2) naming the
// resource and key_url and saying an apt signing key may be at most 1 MiB,
// as the wetrun says it; a key of 1 MiB is minted.
func TestMintingAnAptKeyOverOneMiBSaysTheKeyBound(t *testing.T) {
	big := bytes.Repeat([]byte("k"), 1<<20+1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/small.asc" {
			w.Write(big[:1<<20])
			return
		}
		w.Write(big)
	}))
	defer srv.Close()
	doc := `{"format":"zap.declaration/1","target":{"local":true},"resources":[
{"id":"repo","type":"apt_repo","key_url":"` + srv.URL + `/key.asc","source":"deb https://example.invalid/ stable main"},
{"id":"small","type":"apt_repo","key_url":"` + srv.URL + `/small.asc","source":"deb https://example.invalid/ small main"}]}`
	d, err := declaration.Read(canonical(t, doc))
	if err != nil {
		t.Fatal(err)
	}
	res := resolve.Resolve(d, func(string) (string, bool) { return "", false })
	f := fetch.New(fetch.NewCache(filepath.Join(t.TempDir(), "files")), fetch.Options{})
	defer f.Close()
	m := &Minter{s: &Session{Res: res}, h: lockhash.New(d, res), f: f}
	_, err = m.Mint(context.Background(), &d.Resources[0])
	want := "an apt signing key may be at most 1 MiB"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "repo: key_url: ") {
		t.Errorf("a key over 1 MiB: %v, want %q naming repo and key_url", err, want)
	}
	if exit.Code(err) != 2 || !errors.Is(err, fetch.ErrTooLarge) {
		t.Errorf("a key over 1 MiB: %#v, want exit 2", err)
	}
	if _, err := m.Mint(context.Background(), &d.Resources[1]); err != nil {
		t.Errorf("a key of 1 MiB: %v", err)
	}
}
