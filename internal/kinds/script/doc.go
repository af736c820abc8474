package script

import _ "embed"

// doc is the kind's reference prose: zap doc script and docs/kinds/script.md
// (kind.Def's Doc).
//
//go:embed doc.md
var doc string
