package vocab

import "github.com/zap-go/zap/pkg/plan"

// The operations of a swap's change (internal/ops/scripts/swap-*.sh), each
// run as root with the swap file's path first.
const (
	OpSwapMake  plan.OpName = "swap-make"  // PATH SIZE: the path check; a new file, 0600 root:root, fallocate (else dd), mkswap
	OpSwapOn    plan.OpName = "swap-on"    // PATH: the path check; swapon
	OpSwapFstab plan.OpName = "swap-fstab" // PATH: /etc/fstab rewritten whole with `PATH none swap sw 0 0`, by rename
)

// The parts of a swap's drift (the field names), and the values each shows;
// the planner reads them to pick the steps.
const (
	FieldSwapFile   = "file"
	FieldSwapActive = "active"
	FieldSwapFstab  = "fstab"

	SwapPresent   = "present"
	SwapAbsent    = "absent"
	SwapActive    = "active"
	SwapInactive  = "not active"
	SwapListed    = "listed"
	SwapNotListed = "not listed"
)
