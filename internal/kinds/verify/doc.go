package verify

import _ "embed"

// doc is the kind's reference prose: zap doc verify and docs/kinds/verify.md
// (kind.Def's Doc).
//
//go:embed doc.md
var doc string
