package planner

import (
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// firewallTimeout is each firewall operation's limit, in seconds.
const firewallTimeout = 120

// firewallSteps are a firewall's steps, from its drift: for ufw, a ufw
// allow for each missing rule, then ufw default for each policy that
// differs, then ufw --force enable (which also makes it start at boot). A
// firewall read absent (no ufw yet, or inactive) gets every rule and both
// policies. The rules come first, so a default deny never stands, even for
// a moment, on an active firewall without the declared allow for the SSH
// session's port. An nftables firewall's ruleset is declarative: whatever
// drifted, its one step writes and loads the whole table again
// (firewall-nft-apply INCOMING OUTGOING RULE...).
func firewallSteps(f *declaration.Firewall, v observation.Verdict, drift []observation.Difference) []plan.Step {
	op := func(name plan.OpName, args ...string) plan.Step {
		return plan.Step{Type: plan.StepOp, Op: &plan.Op{Name: name, Args: args, Privilege: plan.Root, Timeout: firewallTimeout}}
	}
	if f.Backend == "nftables" {
		in, out := vocab.FirewallPolicies(f)
		args := []string{in, out}
		for _, a := range f.Allow {
			args = append(args, vocab.FirewallRule(a))
		}
		return []plan.Step{op(vocab.OpNftApply, args...)}
	}
	all := v == observation.Absent
	missing := map[int]bool{}
	policies := map[string]bool{}
	for _, d := range drift {
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
	return append(steps, op(vocab.OpUfwEnable))
}
