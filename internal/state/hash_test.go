package state

import (
	"bytes"
	"encoding/json"
	"os"
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
