package file

import _ "embed"

// doc is the kind's reference prose: zap doc file and docs/kinds/file.md
// (kind.Def's Doc).
//
//go:embed doc.md
var doc string
