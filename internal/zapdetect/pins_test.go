package zapdetect

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/lock"
	"github.com/zap-go/zap/internal/lockhash"
	"github.com/zap-go/zap/internal/resolve"
	"github.com/zap-go/zap/pkg/declaration"
)

const pinA = "bc96f6c75221fe1eef3eb30363f87ef17e2b62e02f35a401ff36c054fba3d3fe"

// A tracked pin is the lock's entry while it is current, a --pin its
// caller minted, or else a hold saying why and what to run; a vendored one
// is itself. A lock that doesn't read is bad input.
func TestPinsFromTheLock(t *testing.T) {
	t.Setenv("ZAP_HOME", t.TempDir())
	var d declaration.Declaration
	doc := `{"format":"zap.declaration/1","target":{"local":true},"resources":[
	  {"id":"cur","type":"file","path":"/opt/a","content":{"type":"remote","url":"https://example.org/a"}},
	  {"id":"stale","type":"file","path":"/opt/b","content":{"type":"remote","url":"https://example.org/b"}},
	  {"id":"missing","type":"file","path":"/opt/c","content":{"type":"remote","url":"https://example.org/c"}},
	  {"id":"minted","type":"file","path":"/opt/d","content":{"type":"remote","url":"https://example.org/d"}},
	  {"id":"vendored","type":"file","path":"/opt/e","content":{"type":"remote","url":"https://example.org/e","blake3":"` + pinA + `"}}]}`
	if err := json.Unmarshal([]byte(doc), &d); err != nil {
		t.Fatal(err)
	}
	res := resolve.Resolve(&d, func(string) (string, bool) { return "", false })
	h := lockhash.New(&d, res)
	cur, err := h.Entry(&d.Resources[0], mustFetched(t, &d.Resources[0]), pinA)
	if err != nil {
		t.Fatal(err)
	}
	stale := lock.Entry{ID: "stale", Kind: "remote_file", Blake3: pinA, ConfigHash: strings.Repeat("0", 64)}
	path := filepath.Join(t.TempDir(), "zap.lock")
	if err := lock.Write(path, &lock.Lock{Entries: []lock.Entry{cur, stale}}); err != nil {
		t.Fatal(err)
	}
	var f pinFlags
	f.lock = path
	if err := f.pinFlag("minted=" + pinA); err != nil {
		t.Fatal(err)
	}
	p, err := newPins(&d, res, f)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"", "its zap.lock entry is stale: the declaration changed since its pin was minted; run zap update stale",
		"its pin is tracked in zap.lock, which has no entry for it: zap apply mints one, or run zap update missing", "", ""} {
		r := &d.Resources[i]
		got := p.pin(r, mustFetched(t, r))
		if got.Hold != want || (want == "" && got.Blake3 != pinA) || (want != "" && got.Blake3 != "") {
			t.Errorf("%s: %+v, want hold %q", r.ID, got, want)
		}
	}
	none, err := newPins(&d, res, pinFlags{})
	if err != nil {
		t.Fatal(err)
	}
	if got := none.pin(&d.Resources[0], mustFetched(t, &d.Resources[0])); got.Hold != "its pin is tracked in zap.lock, which this pass doesn't read" {
		t.Errorf("no --lock: %+v", got)
	}
	for _, bad := range []string{"x", "x=ABC", "=" + pinA} {
		if err := (&pinFlags{}).pinFlag(bad); err == nil {
			t.Errorf("--pin %q accepted", bad)
		}
	}
	if err := lock.Write(path, &lock.Lock{}); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(path, `{"format":"zap.lock/9"}`); err != nil {
		t.Fatal(err)
	}
	if _, err := newPins(&d, res, pinFlags{lock: path}); exit.Code(err) != 2 || !strings.Contains(err.Error(), "newer than this zap reads") {
		t.Errorf("a newer lock: %v (exit %d), want bad input", err, exit.Code(err))
	}
}

func mustFetched(t *testing.T, r *declaration.Resource) declaration.Fetched {
	t.Helper()
	f, ok := r.Fetched()
	if !ok {
		t.Fatalf("%s fetches nothing", r.ID)
	}
	return f
}

func writeFile(path, s string) error { return os.WriteFile(path, []byte(s), 0o644) }
