package directory

import _ "embed"

// doc is the kind's reference prose: zap doc directory and docs/kinds/directory.md
// (kind.Def's Doc).
//
//go:embed doc.md
var doc string
