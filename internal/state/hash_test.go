package state

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/resolve"
	"github.com/zap-go/zap/pkg/declaration"
)

// TestResourceHashPlainPath: a resource with no reference, hashed against a
// resolution with no secret value, takes the quick way (its own members,
// canonical), which gives the same bytes as the walk: for every kind of the
// evaluator's golden declaration, and for strings that need escaping.
func TestResourceHashPlainPath(t *testing.T) {
	data, err := os.ReadFile("../../cmd/zap-eval/testdata/script/eval_kinds_golden.txtar")
	if err != nil {
		t.Fatal(err)
	}
	_, golden, ok := strings.Cut(string(data), "-- want.json --\n")
	if !ok {
		t.Fatal("eval_kinds_golden.txtar has no want.json")
	}
	golden, _, _ = strings.Cut(golden, "\n-- ")
	var d declaration.Declaration
	if err := json.Unmarshal([]byte(golden), &d); err != nil {
		t.Fatal(err)
	}
	var extra declaration.Declaration
	if err := json.Unmarshal([]byte(`{"format":"zap.declaration/1","target":{"local":true},"resources":[
		{"id":"e","name":"N","depends_on":["x"],"type":"file","path":"/tmp/a<b>&c é\u2028\"q\"\\","mode":"644","content":{"type":"inline","content":"<html>&amp; \u00e9\t\u0001 \ud83d\ude00\n"}},
		{"id":"x","type":"directory","path":"/tmp/x"}]}`), &extra); err != nil {
		t.Fatal(err)
	}
	resources := append(append([]declaration.Resource{}, d.Resources...), extra.Resources...)
	res := resolve.Resolve(&extra, func(string) (string, bool) { return "", false })
	h := newResourceHasher(res)
	if !h.plain {
		t.Fatal("a resolution with no secret isn't plain")
	}
	plain := 0
	for i := range resources {
		r := &resources[i]
		raw, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(raw, envKey) || bytes.Contains(raw, textKey) {
			continue
		}
		plain++
		quick, err := h.plainDoc(r, raw)
		if err != nil {
			t.Fatalf("%s: %v", r.ID, err)
		}
		walked, err := h.walkDoc(r, raw)
		if err != nil {
			t.Fatalf("%s: %v", r.ID, err)
		}
		if !bytes.Equal(quick, walked) {
			t.Errorf("%s: the quick way gives\n%s\nthe walk\n%s", r.ID, quick, walked)
		}
	}
	if plain < 10 {
		t.Fatalf("only %d resources without a reference to compare", plain)
	}
}

// TestResourceHashStable: the hash of a plain resource is the one reports
// have recorded all along (a changed hash would read as drift).
func TestResourceHashStable(t *testing.T) {
	var d declaration.Declaration
	if err := json.Unmarshal([]byte(`{"format":"zap.declaration/1","target":{"local":true},"resources":[
		{"id":"f","name":"N","depends_on":["d"],"type":"file","path":"~/f","mode":"644","content":{"type":"inline","content":"x\n"}},
		{"id":"d","type":"directory","path":"~/d"}]}`), &d); err != nil {
		t.Fatal(err)
	}
	res := resolve.Resolve(&d, func(string) (string, bool) { return "", false })
	for i, want := range []string{wantStableF, wantStableD} {
		got, secret, err := ResourceHash(&d.Resources[i], res)
		if err != nil || secret {
			t.Fatalf("%s: %v secret %v", d.Resources[i].ID, err, secret)
		}
		if got != want {
			t.Errorf("%s: hash %s, want %s", d.Resources[i].ID, got, want)
		}
	}
}

// The hashes of TestResourceHashStable's file and directory, as the walk
// alone made them.
const (
	wantStableF = "fe19c551ce2438c97b32afc038fe2578151b1b6e251f1c8587ed4c01740cbcf1"
	wantStableD = "e7d2535dfa0dd6f9d53d69292efeb6202168855325ed48f58b796d519054925b"
)

// TestDecodeQuick: a report decodes field by field to what the strict
// decoder makes of it; what the quick way doesn't take, the strict way
// refuses (and words).
func TestDecodeQuick(t *testing.T) {
	for _, in := range []string{
		`{"format":"zap.report/1","batches":[{"lane":"login","queries":3}],"command":"plan","host":"h","plan_hash":"p","preview":true,` +
			`"resources":[{"hash":"a","id":"f","verdict":"converged"},{"hash":"b","id":"g","secret":true,"verdict":"drifted"}],"time":"2026-01-01T00:00:00Z","unresolved":["X"]}`,
		`{"format":"zap.report/1","batches":[],"command":"detect","host":"h","preview":false,"resources":[],"time":"t"}`,
		`{"format":"zap.report/1"}`,
		`{"format":"zap.report/1","resources":[{}],"unresolved":[]}`,
	} {
		var quick, strict Report
		if !quick.decodeQuick([]byte(in)) {
			t.Errorf("the quick way refused %s", in)
			continue
		}
		if err := declaration.DecodeStrict([]byte(in), &strict); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(quick, strict) {
			t.Errorf("%s\nquick  %#v\nstrict %#v", in, quick, strict)
		}
	}
	for _, in := range []string{
		`{"format":"zap.report/1","extra":1}`,
		`{"format":"zap.report/1","resources":[{"id":"f","verdict":"converged","why":"x"}]}`,
		`{"format":"zap.report/1","resources":[{"id":1}]}`,
		`{"format":"zap.report/1","resources":[1]}`,
		`{"format":"zap.report/1","preview":"yes"}`,
		`{"format":"zap.report/1","batches":[{"lane":"login"}]}`,
		`{"format":"zap.report/1","Host":"h"}`,
	} {
		var quick, strict Report
		if quick.decodeQuick([]byte(in)) {
			t.Errorf("the quick way took %s", in)
		}
		if err := declaration.DecodeStrict([]byte(in), &strict); err == nil {
			t.Errorf("the strict way took %s", in)
		}
	}
}
