package resolve

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/declaration"
)

// FuzzResourceHashQuickPathIsTheWalk reads any declaration and, for each
// resource with no reference hashed against a resolution with no secret
// value, checks the quick way (the resource's own members, canonical)
// gives the walk's bytes; and that ResourceHash gives the same hash twice
// and a different one when the resource's path moves.
func FuzzResourceHashQuickPathIsTheWalk(f *testing.F) {
	for _, seed := range []string{`{"format":"zap.declaration/1","target":{"local":true},"resources":[
		{"id":"e","name":"N","depends_on":["x"],"type":"file","path":"/tmp/a<b>&c é\u2028\"q\"\\","mode":"644","content":{"type":"inline","content":"<html>&amp; \u00e9\t\u0001 \ud83d\ude00\n"}},
		{"id":"x","type":"directory","path":"/tmp/x","owner":"root"}]}`,
		`{"format":"zap.declaration/1","target":{"local":true},"resources":[
		{"id":"l","type":"link","path":"~/l","target":"/etc/hosts"},
		{"id":"s","type":"script","check":"test -e /x","run":"touch /x","env":{"A":"1"}}]}`,
		`{"format":"zap.declaration/1","target":{"local":true},"resources":[
		{"id":"f","type":"file","path":{"$env":"P"},"content":{"type":"inline","content":"x"}}]}`,
	} {
		if _, err := declaration.Read([]byte(seed)); err != nil {
			f.Fatalf("a seed doesn't read: %v\n%s", err, seed)
		}
		f.Add([]byte(seed))
	}
	// Every kind, as the evaluator's golden declaration has them.
	data, err := os.ReadFile("../../cmd/zap-eval/testdata/script/eval_kinds_golden.txtar")
	if err != nil {
		f.Fatal(err)
	}
	_, golden, _ := strings.Cut(string(data), "-- want.json --\n")
	golden, _, _ = strings.Cut(golden, "\n-- ")
	if _, err := declaration.Read([]byte(golden)); err != nil {
		f.Fatalf("the golden declaration doesn't read: %v", err)
	}
	f.Add([]byte(golden))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := declaration.Read(data)
		if err != nil {
			return
		}
		res := Resolve(d, func(string) (string, bool) { return "", false })
		h := NewHasher(res)
		for i := range d.Resources {
			r := d.Resources[i].WithoutCredential()
			raw, err := json.Marshal(r)
			if err != nil {
				t.Fatalf("%s: %v", r.ID, err)
			}
			if h.plain && !bytes.Contains(raw, envKey) && !bytes.Contains(raw, textKey) {
				quick, err1 := h.plainDoc(r, raw)
				walked, err2 := h.walkDoc(r, raw)
				if (err1 == nil) != (err2 == nil) || !bytes.Equal(quick, walked) {
					t.Fatalf("%s: the quick way gives %s (%v), the walk %s (%v)", r.ID, quick, err1, walked, err2)
				}
			}
			h1, _, err := h.Hash(&d.Resources[i], "")
			if err != nil {
				continue
			}
			if h2, _, _ := h.Hash(&d.Resources[i], ""); h2 != h1 {
				t.Fatalf("%s: hashed %s, then %s", r.ID, h1, h2)
			}
			if f := declaration.BodyOf[*declaration.File](&d.Resources[i]); f != nil {
				c := d.Resources[i].Clone()
				declaration.BodyOf[*declaration.File](&c).Path = declaration.Concat(declaration.Part{Lit: "/moved"}, declaration.Part{Lit: f.Path.String()})
				if h3, _, _ := h.Hash(&c, ""); h3 == h1 {
					t.Fatalf("%s: the path moved, the hash %s didn't", r.ID, h1)
				}
			}
		}
	})
}
