package database

import _ "embed"

// doc is the kind's reference prose: zap doc database and docs/kinds/database.md
// (kind.Def's Doc).
//
//go:embed doc.md
var doc string
