package evaluate

import (
	"testing"

	"github.com/zap-go/zap/internal/schema"
)

// TestHooksNamed requires every hook a field names to be one the reader
// has, and every hook to be named by a field.
func TestHooksNamed(t *testing.T) {
	named := map[string]bool{}
	for _, s := range schema.All() {
		for _, f := range s.Fields {
			if f.Hook == "" {
				continue
			}
			named[f.Hook] = true
			if hooks[f.Hook] == nil {
				t.Errorf("%v.%s: no hook %q", s.Type, f.GoName, f.Hook)
			}
		}
	}
	for h := range hooks {
		if !named[h] {
			t.Errorf("hook %q is named by no field", h)
		}
	}
}
