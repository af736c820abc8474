package kinds

import (
	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/pkg/declaration"
)

// Doc is one kind's reference prose (kind.Def's Doc).
type Doc struct {
	Type declaration.Kind
	// Text is the kind's doc.md, "" when it has none yet.
	Text string
}

// Docs lists the kinds this zap acts on, the test-only ones aside, each
// with its prose: what zap doc and docs/kinds/ are made of, with the
// schema's fields (internal/refdoc).
func Docs() []Doc {
	out := make([]Doc, 0, len(all))
	for _, k := range all {
		d := Doc{Type: k.Type()}
		if x, ok := k.(kind.Documented); ok {
			d.Text = x.Documentation()
		}
		out = append(out, d)
	}
	return out
}
