package scripttest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAcceptedSkipsAreDocumented wants every skip make test accepts as root
// in CI named in docs/testing.md, its package and test as written there
// ("`internal/localhost` `TestDigestUnreadable`"), so the page lists every
// test CI lets skip.
func TestAcceptedSkipsAreDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "testing.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range AcceptedSkips {
		pkg := strings.TrimPrefix(a.Package, "github.com/zap-go/zap/")
		if want := "`" + pkg + "` `" + a.Test + "`"; !strings.Contains(string(doc), want) {
			t.Errorf("docs/testing.md doesn't name the accepted skip %s (want %q in it)", a.Test, want)
		}
		if a.Why == "" {
			t.Errorf("the accepted skip %s %s has no reason", pkg, a.Test)
		}
	}
}
