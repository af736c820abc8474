// Package user is the user kind: an account, its shell, home mode, groups,
// SSH keys and sudo rule. Its wire form is pkg/declaration/kind_user.go;
// its reads are detect.User.
package user

import (
	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// Kind is the user kind.
type Kind struct{}

// Type is "user".
func (Kind) Type() declaration.Kind { return declaration.KindUser }

// Detect reads the account, its groups, keys and sudo rule.
func (Kind) Detect(r *declaration.Resource, _ detect.Env) detect.Detector {
	return detect.NewUser(r.User)
}

// timeout is each user operation's limit, in seconds.
const timeout = 120

// Steps: the account (and its shell), then each declared attribute in
// turn: home_mode, groups, ssh_keys (with the password field), sudo. An
// attribute left unset has no step.
func (Kind) Steps(r *declaration.Resource, _ kind.Planned) ([]plan.Step, error) {
	u := r.User
	op := func(name plan.OpName, args ...string) plan.Step {
		return plan.Step{Type: plan.StepOp, Op: &plan.Op{Name: name, Args: args, Privilege: plan.Root, Timeout: timeout}}
	}
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

// Declared: nothing beyond its steps.
func (Kind) Declared(*declaration.Resource) []kind.Line { return nil }

// RunsAs: root.
func (Kind) RunsAs() plan.Privilege { return plan.Root }
