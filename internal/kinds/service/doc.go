package service

import _ "embed"

// doc is the kind's reference prose: zap doc service and docs/kinds/service.md
// (kind.Def's Doc).
//
//go:embed doc.md
var doc string
