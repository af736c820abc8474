package declaration

import "testing"

// TestFetched: every kind that takes bytes from a URL says so, with its
// lock entry kind and its pin, and no other resource does.
func TestFetched(t *testing.T) {
	d, err := Read([]byte(canonicalSeeds[4])) // the seed with every kind
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		kind, url string
		pinned    bool
	}{
		"nodesource": {LockAptKey, "https://deb.nodesource.com/gpgkey/nodesource.gpg.key", false},
		"zig":        {LockBuild, "https://ziglang.org/zig.tar.xz", false},
		"rem":        {LockRemoteFile, "http://127.0.0.1:8080/z.tar.gz", true},
	}
	seen := 0
	for i := range d.Resources {
		r := &d.Resources[i]
		f, ok := r.Fetched()
		w, fetches := want[r.ID]
		if ok != fetches {
			t.Errorf("%s: Fetched() = %v, want %v", r.ID, ok, fetches)
			continue
		}
		if !ok {
			continue
		}
		seen++
		if f.Kind != w.kind || f.URL.String() != w.url || f.Tracked() == w.pinned {
			t.Errorf("%s: got %+v, want kind %s url %s vendored %v", r.ID, f, w.kind, w.url, w.pinned)
		}
	}
	if seen != len(want) {
		t.Errorf("saw %d fetching resources, want %d", seen, len(want))
	}
}
