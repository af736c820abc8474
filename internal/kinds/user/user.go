// Package user is the user kind: an account, its shell, home mode,
// groups, SSH keys and sudo rule. Its wire form is
// pkg/declaration/kind_user.go; here are its reads (User), its steps, the
// sudoers file its user-sudo operation writes as the plan shows it, its
// operations' names (names.go) and scripts (scripts/, with the parts only
// they include, scripts/lib), which Kind hands internal/ops, user-keys'
// wording, and their tests; the scripts' own tests run with internal/ops'
// (user_test.go, stage_test.go), whose shells and accounts they share.
// The as part (internal/ops/scripts/lib/as.sh) stays with ops: the
// detector's probes read it (ops.Part) as the package starts, before any
// kind is registered. internal/kinds lists Kind.
package user

import (
	"embed"
	"strings"

	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/internal/ops/opcmd"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// Kind is the user kind, as root.
var Kind = kind.Def[*declaration.User]{Name: declaration.KindUser, Read: NewUser, Plan: steps, As: plan.Root, Ops: scripts, Word: word,
	Text: map[plan.OpName]func([]string) (kind.Body, bool){OpSudo: sudoersBody}, Doc: doc}

//go:embed scripts/*.sh scripts/lib/*.sh
var scripts embed.FS

// word: a keys list's account and each key as a plan shows it (its type,
// the end of its base64 and its comment), as the account it runs as; a
// copy_from, and the other operations, have no words of their own.
func word(op *plan.Op) (opcmd.Words, bool) {
	if op.Name != OpKeys || !declaration.UserKeysArgs(op.Args) {
		return opcmd.Words{}, false
	}
	keys := make([]string, 0, len(op.Args)-2)
	for _, k := range op.Args[2:] {
		keys = append(keys, declaration.KeyShown(k))
	}
	return opcmd.Words{Text: "user-keys " + op.Args[0] + " keys " + strings.Join(keys, ", "), As: true}, true
}

// steps: the account (and its shell), then each declared attribute in
// turn: home_mode, groups, ssh_keys (with the password field), sudo. An
// attribute left unset has no step.
func steps(u *declaration.User, _ kind.Planned) ([]plan.Step, error) {
	op := kind.RootOps(120) // seconds, for each user operation
	n := u.Username
	account := []string{n}
	if u.Shell != "" {
		account = append(account, u.Shell)
	}
	steps := []plan.Step{op(OpAccount, account...)}
	if u.HomeMode != "" {
		steps = append(steps, op(OpHome, n, u.HomeMode))
	}
	if len(u.Groups) > 0 {
		steps = append(steps, op(OpGroups, append([]string{n}, u.Groups...)...))
	}
	if k := u.SSHKeys; k != nil {
		if k.CopyFrom != "" {
			steps = append(steps, op(OpKeys, n, "copy_from", k.CopyFrom))
		} else {
			steps = append(steps, op(OpKeys, append([]string{n, "keys"}, k.Keys...)...))
		}
	}
	if s := u.Sudo; s != nil {
		if s.Remove {
			steps = append(steps, op(OpSudo, n, "remove"))
		} else {
			steps = append(steps, op(OpSudo, append([]string{n, s.Mode}, s.Commands...)...))
		}
	}
	return steps, nil
}

// sudoersBody: the sudoers file user-sudo NAME MODE [COMMAND...] writes
// at /etc/sudoers.d/NAME, whole, as the script prints it (a test holds the
// two to one form): a comment, then the rule with NOPASSWD: or PASSWD:
// and the commands joined with ", ", ALL when none is listed. A removal
// writes nothing.
func sudoersBody(args []string) (kind.Body, bool) {
	if len(args) < 2 {
		return kind.Body{}, false
	}
	n, mode := args[0], args[1]
	var tag string
	switch mode {
	case "nopasswd":
		tag = "NOPASSWD: "
	case "password":
		tag = "PASSWD: "
	default:
		return kind.Body{}, false
	}
	cmds := strings.Join(args[2:], ", ")
	if cmds == "" {
		cmds = "ALL"
	}
	return kind.Body{Field: "text", Text: "# zap: the sudo grant of " + n + "\n" + n + " ALL=(ALL:ALL) " + tag + cmds + "\n"}, true
}
