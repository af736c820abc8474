package bundle

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/project"
)

// BenchmarkBuildManyModules bundles a config of 20 modules that declare 100
// files each, the large config of the evaluator's budget.
func BenchmarkBuildManyModules(b *testing.B) {
	files := map[string]string{"package.json": `{"name": "p"}`}
	var imports, calls strings.Builder
	for m := range 20 {
		var body strings.Builder
		fmt.Fprintf(&body, "import type { Zap } from '@zap-go/zap';\nexport function role%d(zap: Zap): void {\n", m)
		for i := range 100 {
			fmt.Fprintf(&body, "  zap.file({ id: 'f-%d-%d', path: '~/srv/%d/%d.conf', content: { type: 'inline', content: 'n = %d\\n' }, mode: '644' });\n", m, i, m, i, i)
		}
		body.WriteString("}\n")
		files[fmt.Sprintf("roles/role%d.ts", m)] = body.String()
		fmt.Fprintf(&imports, "import { role%d } from './roles/role%d.ts';\n", m, m)
		fmt.Fprintf(&calls, "  role%d(zap);\n", m)
	}
	files["zap.ts"] = "import type { Zap } from '@zap-go/zap';\n" + imports.String() +
		"export default (zap: Zap) => {\n  zap.target({ local: true });\n" + calls.String() + "};\n"
	p, err := project.Find(filepath.Join(write(b, files), "zap.ts"))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Build(p); err != nil {
			b.Fatal(err)
		}
	}
}
