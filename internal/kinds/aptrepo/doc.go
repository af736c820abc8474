package aptrepo

import _ "embed"

// doc is the kind's reference prose: zap doc apt_repo and docs/kinds/apt_repo.md
// (kind.Def's Doc).
//
//go:embed doc.md
var doc string
