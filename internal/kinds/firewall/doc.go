package firewall

import _ "embed"

// doc is the kind's reference prose: zap doc firewall and docs/kinds/firewall.md
// (kind.Def's Doc).
//
//go:embed doc.md
var doc string
