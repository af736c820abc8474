package service

import "github.com/zap-go/zap/pkg/plan"

// The operations of a service's change (scripts/svc-*.sh),
// each run as root with MANAGER SERVICE: a trigger (restart, reload; each
// only of a running service), then enable or disable at boot, OpenRC's
// zap of a crashed service, start or stop.
const (
	OpRestart plan.OpName = "svc-restart"
	OpReload  plan.OpName = "svc-reload"
	OpEnable  plan.OpName = "svc-enable"
	OpDisable plan.OpName = "svc-disable"
	OpZap     plan.OpName = "svc-zap"
	OpStart   plan.OpName = "svc-start"
	OpStop    plan.OpName = "svc-stop"
)

// OpTimeout is the limit, in seconds, on each service operation.
const OpTimeout = 300

// The values a service's drift shows, and its steps read: the field names
// and the desired states.
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
