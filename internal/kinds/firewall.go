package kinds

// A firewall is allow rules and default policies, on ufw or nftables. Its
// wire form is pkg/declaration/kind_firewall.go; its reads are detect.Ufw
// and detect.Nft.

import (
	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// firewallSteps, from the drift: for ufw, a ufw allow for each missing
// rule, then ufw default for each policy that differs, then ufw --force
// enable (which also makes it start at boot). A firewall read absent (no ufw yet, or
// inactive) gets every rule and both policies. The rules come first, so a
// default deny never stands, even for a moment, on an active firewall
// without the declared allow for the SSH session's port. An nftables
// firewall's ruleset is declarative: whatever drifted, its one step writes
// and loads the whole table again (firewall-nft-apply INCOMING OUTGOING
// RULE...).
func firewallSteps(f *declaration.Firewall, at kind.Planned) ([]plan.Step, error) {
	op := rootOps(120) // seconds, for each firewall operation
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
