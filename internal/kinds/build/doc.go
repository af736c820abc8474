package build

import _ "embed"

// doc is the kind's reference prose: zap doc build and docs/kinds/build.md
// (kind.Def's Doc).
//
//go:embed doc.md
var doc string
