// Package firewall is the firewall kind: allow rules and default policies,
// on ufw or nftables. Its wire form is pkg/declaration/kind_firewall.go; its
// reads are detect.Ufw and detect.Nft.
package firewall

import (
	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// Kind is the firewall kind.
type Kind struct{}

// Type is "firewall".
func (Kind) Type() declaration.Kind { return declaration.KindFirewall }

// Detect reads the backend's rules and policies.
func (Kind) Detect(r *declaration.Resource, _ detect.Env) detect.Detector {
	return detect.NewFirewall(r.Firewall)
}

// timeout is each firewall operation's limit, in seconds.
const timeout = 120

// Steps, from the drift: for ufw, a ufw allow for each missing rule, then
// ufw default for each policy that differs, then ufw --force enable (which
// also makes it start at boot). A firewall read absent (no ufw yet, or
// inactive) gets every rule and both policies. The rules come first, so a
// default deny never stands, even for a moment, on an active firewall
// without the declared allow for the SSH session's port. An nftables
// firewall's ruleset is declarative: whatever drifted, its one step writes
// and loads the whole table again (firewall-nft-apply INCOMING OUTGOING
// RULE...).
func (Kind) Steps(r *declaration.Resource, at kind.Planned) ([]plan.Step, error) {
	f := r.Firewall
	op := func(name plan.OpName, args ...string) plan.Step {
		return plan.Step{Type: plan.StepOp, Op: &plan.Op{Name: name, Args: args, Privilege: plan.Root, Timeout: timeout}}
	}
	if f.Backend == "nftables" {
		in, out := vocab.FirewallPolicies(f)
		args := []string{in, out}
		for _, a := range f.Allow {
			args = append(args, vocab.FirewallRule(a))
		}
		return []plan.Step{op(vocab.OpNftApply, args...)}, nil
	}
	all := at.Verdict == observation.Absent
	missing := map[int]bool{}
	policies := map[string]bool{}
	for _, d := range at.Drift {
		if i, ok := vocab.FirewallRuleIndex(d.Field); ok {
			missing[i] = true
			continue
		}
		policies[d.Field] = true
	}
	steps := []plan.Step{}
	for i, a := range f.Allow {
		if all || missing[i] {
			steps = append(steps, op(vocab.OpUfwAllow, vocab.FirewallRule(a)))
		}
	}
	in, out := vocab.FirewallPolicies(f)
	if all || policies[vocab.FieldFirewallIncoming] {
		steps = append(steps, op(vocab.OpUfwDefault, "incoming", in))
	}
	if all || policies[vocab.FieldFirewallOutgoing] {
		steps = append(steps, op(vocab.OpUfwDefault, "outgoing", out))
	}
	return append(steps, op(vocab.OpUfwEnable)), nil
}

// Declared: nothing beyond its steps.
func (Kind) Declared(*declaration.Resource) []kind.Line { return nil }

// RunsAs: root.
func (Kind) RunsAs() plan.Privilege { return plan.Root }
