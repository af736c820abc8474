package planner

import (
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// userTimeout is each user operation's limit, in seconds.
const userTimeout = 120

// userSteps are a user's steps: the account (and its shell), then each
// declared attribute in turn: home_mode, groups, ssh_keys (with the
// password field), sudo. An attribute left unset has no step.
func userSteps(u *declaration.User) []plan.Step {
	op := func(name plan.OpName, args ...string) plan.Step {
		return plan.Step{Type: plan.StepOp, Op: &plan.Op{Name: name, Args: args, Privilege: plan.Root, Timeout: userTimeout}}
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
	return steps
}

// cloneUser copies u deeply enough to share no slice with it.
func cloneUser(u *declaration.User) *declaration.User {
	c := *u
	c.Groups = append([]string(nil), u.Groups...)
	if u.Groups == nil {
		c.Groups = nil
	}
	if u.SSHKeys != nil {
		k := *u.SSHKeys
		if k.Keys != nil {
			k.Keys = append([]string(nil), k.Keys...)
		}
		c.SSHKeys = &k
	}
	if u.Sudo != nil {
		s := *u.Sudo
		if s.Commands != nil {
			s.Commands = append([]string(nil), s.Commands...)
		}
		c.Sudo = &s
	}
	return &c
}
