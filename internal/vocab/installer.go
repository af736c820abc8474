package vocab

import "github.com/zap-go/zap/pkg/plan"

// OpInstaller fetches an install script whole and pipes it into a shell
// (internal/ops/scripts/installer.sh): URL SHELL, as the login user.
const OpInstaller plan.OpName = "installer"
