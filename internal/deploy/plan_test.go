package deploy

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/lock"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/deployplan"
)

// TestPreflightDigest: the preflight's digest moves with a declaration and
// with the pin zap.lock holds for a declared resource, and not with a pin
// of an id the config doesn't declare; --skip-preflight and an empty
// config say so instead.
func TestPreflightDigest(t *testing.T) {
	d, err := declaration.Read([]byte(`{"format":"zap.declaration/1","target":{"host":"h"},"resources":[
		{"id":"a","type":"directory","path":"/srv/a"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "zap.lock")
	write := func(entries ...lock.Entry) {
		t.Helper()
		if err := lock.Write(path, &lock.Lock{Format: lock.Format, Entries: entries}); err != nil {
			t.Fatal(err)
		}
	}
	digest := func(o Options) string {
		t.Helper()
		p, err := preflight(d, o)
		if err != nil {
			t.Fatal(err)
		}
		return p.State + " " + p.Digest
	}
	pin := func(id, b string) lock.Entry {
		return lock.Entry{ID: id, Kind: declaration.LockRemoteFile, Blake3: strings.Repeat(b, 64), ConfigHash: strings.Repeat("c", 64)}
	}
	none := digest(Options{})
	write(pin("other", "1"))
	if got := digest(Options{Lock: path}); got != none {
		t.Errorf("a pin of an undeclared id moved the digest")
	}
	write(pin("a", "1"))
	one := digest(Options{Lock: path})
	write(pin("a", "2"))
	if two := digest(Options{Lock: path}); one == none || two == one {
		t.Errorf("a declared resource's pin doesn't move the digest: %s, %s, %s", none, one, two)
	}
	if got := digest(Options{Flags: deployplan.Flags{SkipPreflight: true}}); got != "skipped " {
		t.Errorf("--skip-preflight: %q", got)
	}
	d.Resources[0].Directory.Path = declaration.Lit("/srv/b")
	if digest(Options{}) == none {
		t.Error("an edited declaration leaves the digest as it was")
	}
}
