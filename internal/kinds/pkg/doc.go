package pkg

import _ "embed"

// doc is the kind's reference prose: zap doc package and docs/kinds/package.md
// (kind.Def's Doc).
//
//go:embed doc.md
var doc string
