package tsgen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/schema"
	"github.com/zap-go/zap/internal/schema/docsrc"
)

func typesTS(t *testing.T) string {
	t.Helper()
	root, err := docsrc.Root()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "ts", "types.ts"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestGenerateCatchesDrift changes types.ts the ways it could drift from
// the schema and requires Generate to put each back.
func TestGenerateCatchesDrift(t *testing.T) {
	src := typesTS(t)
	if out, err := Generate([]byte(src)); err != nil || string(out) != src {
		t.Fatalf("types.ts isn't current (err %v): run go generate ./ts", err)
	}
	for _, c := range []struct{ name, old, new string }{
		{"optional", "\tsize: string;", "\tsize?: string;"},
		{"required", "\tpath?: string;\n}\n\n/** A default firewall policy", "\tpath: string;\n}\n\n/** A default firewall policy"},
		{"type", "\tsize: string;", "\tsize: number;"},
		{"doc", "such as '2G'. Not compared later.", "such as '2G'."},
		{"field left out", "\t/** Whether it starts at boot (default true). */\n\tenabled?: boolean;\n", ""},
		{"field added", "\tsize: string;", "\tsize: string;\n\tpriority?: number;"},
		{"enum", "backend: 'ufw' | 'nftables';", "backend: 'ufw' | 'nftables' | 'iptables';"},
		{"variant field", "\ttype: 'source';\n", "\ttype: 'source';\n\tmode?: string;\n"},
	} {
		if !strings.Contains(src, c.old) {
			t.Fatalf("%s: types.ts has no %q to change", c.name, c.old)
		}
		drifted := strings.Replace(src, c.old, c.new, 1)
		out, err := Generate([]byte(drifted))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if string(out) != src {
			t.Errorf("%s: Generate didn't put the change back", c.name)
		}
	}
}

func TestGenerateNeedsEachDeclaration(t *testing.T) {
	src := strings.Replace(typesTS(t), "export interface SwapSpec ", "export interface SwappSpec ", 1)
	if _, err := Generate([]byte(src)); err == nil || !strings.Contains(err.Error(), "declares no SwapSpec") {
		t.Fatalf("err = %v, want it to name SwapSpec", err)
	}
}

func TestReflow(t *testing.T) {
	got := reflow([]string{"a short", "line and", strings.Repeat("x", 70)})
	want := []string{"a short line and", strings.Repeat("x", 70)}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("reflow = %q, want %q", got, want)
	}
}

// TestBuilderTakesEachKind requires the Builder interface to declare a
// method taking each kind's interface.
func TestBuilderTakesEachKind(t *testing.T) {
	src := typesTS(t)
	for _, b := range schema.Bodies() {
		if want := "(spec: " + b.Name() + "Spec): Builder;"; !strings.Contains(src, want) {
			t.Errorf("types.ts's Builder has no method %s", want)
		}
	}
}
