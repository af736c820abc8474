package state

import (
	"reflect"
	"testing"

	"github.com/zap-go/zap/internal/strict"
)

// TestDecodeQuick: a report decodes field by field to what the strict
// decoder makes of it; what the quick way doesn't take, the strict way
// refuses (and words).
func TestDecodeQuick(t *testing.T) {
	for _, in := range []string{
		`{"format":"zap.report/3","batches":[{"lane":"login","queries":3}],"command":"plan","host":"h","plan_hash":"p","user":"deploy","preview":true,` +
			`"resources":[{"hash":"a","id":"f","verdict":"converged"},{"hash":"b","id":"g","secret":true,"verdict":"drifted"}],"time":"2026-01-01T00:00:00Z","unresolved":["X"]}`,
		`{"format":"zap.report/3","batches":[],"command":"detect","host":"h","preview":false,"resources":[],"time":"t"}`,
		`{"format":"zap.report/3"}`,
		`{"format":"zap.report/3","resources":[{}],"unresolved":[]}`,
	} {
		var quick, strictly Report
		if !quick.decodeQuick([]byte(in)) {
			t.Errorf("the quick way refused %s", in)
			continue
		}
		if err := strict.Decode([]byte(in), &strictly); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(quick, strictly) {
			t.Errorf("%s\nquick  %#v\nstrict %#v", in, quick, strictly)
		}
	}
	for _, in := range []string{
		`{"format":"zap.report/3","extra":1}`,
		`{"format":"zap.report/3","resources":[{"id":"f","verdict":"converged","why":"x"}]}`,
		`{"format":"zap.report/3","resources":[{"id":1}]}`,
		`{"format":"zap.report/3","resources":[1]}`,
		`{"format":"zap.report/3","preview":"yes"}`,
		`{"format":"zap.report/3","batches":[{"lane":"login"}]}`,
		`{"format":"zap.report/3","Host":"h"}`,
		`{"format":"zap.report/3","user":1}`,
	} {
		var quick, strictly Report
		if quick.decodeQuick([]byte(in)) {
			t.Errorf("the quick way took %s", in)
		}
		if err := strict.Decode([]byte(in), &strictly); err == nil {
			t.Errorf("the strict way took %s", in)
		}
	}
}
