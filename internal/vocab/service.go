package vocab

import "github.com/zap-go/zap/pkg/plan"

// The service managers with a backend. launchd parses but has none: its
// services hold, and its steps are notes.
const (
	ManagerSystemd = "systemd"
	ManagerOpenRC  = "openrc"
)

// The operations on the pending-trigger markers
// (internal/ops/scripts/ledger-*.sh), run as root: ledger-mark SERVICE
// ACTION writes the action a service is owed before its first source
// changes, ledger-clear SERVICE removes it after the service's own steps.
const (
	OpLedgerMark  plan.OpName = "ledger-mark"
	OpLedgerClear plan.OpName = "ledger-clear"
)
