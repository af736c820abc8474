package user

import _ "embed"

// doc is the kind's reference prose: zap doc user and docs/kinds/user.md
// (kind.Def's Doc).
//
//go:embed doc.md
var doc string
