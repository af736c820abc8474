package deploy

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/zap-go/zap/pkg/canon"
	"github.com/zap-go/zap/pkg/declaration"
)

// FuzzPreflightDigestTellsDeclarationsApart: two declarations of
// directories get the same preflight digest exactly when their resources
// encode to the same canonical bytes, one for one, however the paths and
// ids split into resources: the digest frames each resource by its length.
func FuzzPreflightDigestTellsDeclarationsApart(f *testing.F) {
	f.Add("/srv/a", "/srv/b", "/srv/a", "/srv/b", true)
	f.Add("/srv/a", "/srv/b", "/srv/a", "/srv/c", true)
	f.Add("/a\n1:x", "/b", "/a", "\n1:x/b", false)
	f.Add("/\u2028\"", "", "/\u2028\"", "", false)
	f.Fuzz(func(t *testing.T, a1, b1, a2, b2 string, two bool) {
		read := func(a, b string) *declaration.Declaration {
			rs := []map[string]any{{"id": "a", "type": "directory", "path": a}}
			if two {
				rs = append(rs, map[string]any{"id": "b", "type": "directory", "path": b})
			}
			data, err := json.Marshal(map[string]any{"format": declaration.Format, "target": map[string]any{"host": "h"}, "resources": rs})
			if err != nil {
				return nil
			}
			d, err := declaration.Read(data)
			if err != nil {
				return nil
			}
			return d
		}
		d1, d2 := read(a1, b1), read(a2, b2)
		if d1 == nil || d2 == nil {
			return
		}
		p1, err1 := preflight(d1, Options{})
		p2, err2 := preflight(d2, Options{})
		if err1 != nil || err2 != nil {
			t.Fatalf("preflight: %v, %v", err1, err2)
		}
		enc := func(d *declaration.Declaration) []string {
			var out []string
			for i := range d.Resources {
				b, err := canon.Marshal(&d.Resources[i])
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, string(b))
			}
			return out
		}
		same := slices.Equal(enc(d1), enc(d2))
		if (p1.Digest == p2.Digest) != same {
			t.Fatalf("same encodings %v, same digest %v:\n%q\n%q", same, p1.Digest == p2.Digest, enc(d1), enc(d2))
		}
		if p1.Count != len(d1.Resources) {
			t.Fatalf("count %d of %d resources", p1.Count, len(d1.Resources))
		}
	})
}
