package detect

import (
	"testing"

	"github.com/zap-go/zap/internal/textdiff"
)

// TestTextLimit: a text read reads what a diff shows.
func TestTextLimit(t *testing.T) {
	if TextLimit != textdiff.Limit {
		t.Errorf("detect.TextLimit %d, textdiff.Limit %d", TextLimit, textdiff.Limit)
	}
}
