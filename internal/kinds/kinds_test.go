package kinds

import (
	"slices"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// notYet are the kinds the declaration carries that no package acts on yet.
var notYet = []declaration.Kind{}

// TestEveryKindIsListedOrHeld holds the list to the declaration's: each
// listed kind is one the format carries, listed once, and each kind the
// format carries is listed or read as held.
func TestEveryKindIsListedOrHeld(t *testing.T) {
	for _, k := range all {
		if !slices.Contains(declaration.Supported, k.Type()) {
			t.Errorf("%s is listed, and the declaration format doesn't carry it", k.Type())
		}
	}
	for _, typ := range declaration.Supported {
		if Known(typ) == slices.Contains(notYet, typ) {
			t.Errorf("%s: listed %v, and expected to be listed %v", typ, Known(typ), !slices.Contains(notYet, typ))
		}
		if Of(&declaration.Resource{Common: declaration.Common{ID: "r", Type: typ}}).Type() != typ {
			t.Errorf("Of a %s resource is another kind", typ)
		}
	}
}

// TestUnreadKindHolds: a resource of a kind this zap can't act on holds,
// naming the kind, reads nothing, and has no steps; a kind the format
// doesn't carry stands in for one when every kind is listed.
func TestUnreadKindHolds(t *testing.T) {
	for _, typ := range append(slices.Clone(notYet), "nosuch") {
		r := &declaration.Resource{Common: declaration.Common{ID: "r", Type: typ}}
		k := Of(r)
		det := k.Detect(r, detect.Env{})
		if q := det.Queries(); len(q) != 0 {
			t.Errorf("%s: %d queries, want none", typ, len(q))
		}
		res := det.Verdict(nil)
		if res.Verdict != observation.Undetermined || !strings.Contains(res.Reason, "can't read "+string(typ)+" resources yet") {
			t.Errorf("%s: verdict %s (%q), want undetermined naming the kind", typ, res.Verdict, res.Reason)
		}
		if _, err := k.Steps(r, kind.Planned{}); err == nil || !strings.Contains(err.Error(), string(typ)) {
			t.Errorf("%s: Steps error %v, want one naming the type", typ, err)
		}
	}
}
