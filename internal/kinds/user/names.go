package user

import "github.com/zap-go/zap/pkg/plan"

// The operations of a user's change (scripts/user-*.sh), each run as root
// and each a no-op where the account already reads as declared, so a
// create and an update share them.
const (
	OpAccount plan.OpName = "user-account" // NAME [SHELL]: useradd -m -d /home/NAME, chown -h; usermod -s
	OpHome    plan.OpName = "user-home"    // NAME MODE: chmod of /home/NAME, entered without a link
	OpGroups  plan.OpName = "user-groups"  // NAME GROUP...: usermod -a -G, additive
	OpKeys    plan.OpName = "user-keys"    // NAME keys KEY... | NAME copy_from SOURCE; shadow field *
	OpSudo    plan.OpName = "user-sudo"    // NAME MODE [COMMAND...] | NAME remove; visudo -c first
)
