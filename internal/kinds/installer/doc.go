package installer

import _ "embed"

// doc is the kind's reference prose: zap doc installer and docs/kinds/installer.md
// (kind.Def's Doc).
//
//go:embed doc.md
var doc string
