package vocab

import "github.com/zap-go/zap/pkg/plan"

// The service managers with a backend. launchd parses but has none: its
// services hold, and its steps are notes.
const (
	ManagerSystemd = "systemd"
	ManagerOpenRC  = "openrc"
)

// The operations of a service's change (internal/ops/scripts/svc-*.sh),
// each run as root with MANAGER SERVICE: a trigger (restart, reload; each
// only of a running service), then enable or disable at boot, OpenRC's
// zap of a crashed service, start or stop.
const (
	OpSvcRestart plan.OpName = "svc-restart"
	OpSvcReload  plan.OpName = "svc-reload"
	OpSvcEnable  plan.OpName = "svc-enable"
	OpSvcDisable plan.OpName = "svc-disable"
	OpSvcZap     plan.OpName = "svc-zap"
	OpSvcStart   plan.OpName = "svc-start"
	OpSvcStop    plan.OpName = "svc-stop"
)

// The operations on the pending-trigger markers
// (internal/ops/scripts/ledger-*.sh), run as root: ledger-mark SERVICE
// ACTION writes the action a service is owed before its first source
// changes, ledger-clear SERVICE removes it after the service's own steps.
const (
	OpLedgerMark  plan.OpName = "ledger-mark"
	OpLedgerClear plan.OpName = "ledger-clear"
)

// The values a service's drift shows, and the planner reads: the field
// names and the desired states.
const (
	FieldEnabled = "enabled"
	FieldRunning = "running"

	StateEnabled  = "enabled"
	StateDisabled = "disabled"
	StateRunning  = "running"
	StateStopped  = "stopped"
	// StateCrashed is OpenRC's started service whose daemon died: a start
	// resets it with rc-service <svc> zap first.
	StateCrashed = "crashed"
)
