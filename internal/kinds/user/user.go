// Package user is the user kind: an account, its shell, home mode,
// groups, SSH keys and sudo rule. Its wire form is
// pkg/declaration/kind_user.go; here are its reads (User), its steps, the
// sudoers file its user-sudo operation writes as the plan shows it, and
// their tests. Its operations' names stay in internal/vocab, their
// scripts in internal/ops/scripts and user-keys' wording in
// internal/ops/opcmd, for now. internal/kinds lists Kind.
package user

import (
	"strings"

	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// Kind is the user kind, as root.
var Kind = kind.Def[*declaration.User]{Name: declaration.KindUser, Read: NewUser, Plan: steps, As: plan.Root,
	Text: map[plan.OpName]func([]string) (kind.Body, bool){vocab.OpUserSudo: sudoersBody}, Doc: doc}

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
	steps := []plan.Step{op(vocab.OpUserAccount, account...)}
	if u.HomeMode != "" {
		steps = append(steps, op(vocab.OpUserHome, n, u.HomeMode))
	}
	if len(u.Groups) > 0 {
		steps = append(steps, op(vocab.OpUserGroups, append([]string{n}, u.Groups...)...))
	}
	if k := u.SSHKeys; k != nil {
		if k.CopyFrom != "" {
			steps = append(steps, op(vocab.OpUserKeys, n, "copy_from", k.CopyFrom))
		} else {
			steps = append(steps, op(vocab.OpUserKeys, append([]string{n, "keys"}, k.Keys...)...))
		}
	}
	if s := u.Sudo; s != nil {
		if s.Remove {
			steps = append(steps, op(vocab.OpUserSudo, n, "remove"))
		} else {
			steps = append(steps, op(vocab.OpUserSudo, append([]string{n, s.Mode}, s.Commands...)...))
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
