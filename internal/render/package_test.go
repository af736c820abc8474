package render

import (
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/declaration"
)

// TestDeclaredPackage: a package shows each manager's name, in the
// managers' order, and its check.
func TestDeclaredPackage(t *testing.T) {
	check := declaration.Lit("/usr/bin/rg")
	r := declaration.Resource{Common: declaration.Common{ID: "rg", Type: declaration.KindPackage},
		Body: &declaration.Package{From: map[string]string{"brew": "ripgrep", "apk": "ripgrep", "apt": "ripgrep=13.0.0-4"}, Check: &check}}
	var b strings.Builder
	Declared(&b, &r, "    ")
	want := "    from: apt ripgrep=13.0.0-4\n    from: apk ripgrep\n    from: brew ripgrep\n    check: /usr/bin/rg\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}
