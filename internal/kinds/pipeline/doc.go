package pipeline

import _ "embed"

// doc is the kind's reference prose: zap doc pipeline and docs/kinds/pipeline.md
// (kind.Def's Doc).
//
//go:embed doc.md
var doc string
