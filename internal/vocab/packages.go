package vocab

import "github.com/zap-go/zap/pkg/plan"

// The package managers with a backend.
const (
	ManagerApt = "apt"
	ManagerApk = "apk"
)

// OpPkgUpdate is the operation that refreshes manager's index
// (internal/ops/scripts/pkg-update-MANAGER.sh), as root, no arguments.
func OpPkgUpdate(manager string) plan.OpName { return plan.OpName("pkg-update-" + manager) }

// OpPkgInstall is the operation that installs packages with manager
// (internal/ops/scripts/pkg-install-MANAGER.sh), as root: NAME...
func OpPkgInstall(manager string) plan.OpName { return plan.OpName("pkg-install-" + manager) }
