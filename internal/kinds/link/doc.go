package link

import _ "embed"

// doc is the kind's reference prose: zap doc link and docs/kinds/link.md
// (kind.Def's Doc).
//
//go:embed doc.md
var doc string
