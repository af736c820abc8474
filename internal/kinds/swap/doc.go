package swap

import _ "embed"

// doc is the kind's reference prose: zap doc swap and docs/kinds/swap.md
// (kind.Def's Doc).
//
//go:embed doc.md
var doc string
