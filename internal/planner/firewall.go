package planner

import (
	"strconv"
	"strings"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// The operations of a ufw firewall's change
// (internal/ops/scripts/firewall-ufw-*.sh), each run as root.
const (
	OpUfwAllow   plan.OpName = "firewall-ufw-allow"   // RULE: ufw allow RULE (PORT, PORT/PROTO or a profile)
	OpUfwDefault plan.OpName = "firewall-ufw-default" // DIRECTION POLICY: ufw default POLICY DIRECTION
	OpUfwEnable  plan.OpName = "firewall-ufw-enable"  // ufw --force enable
)

// OpNftApply is an nftables firewall's one operation
// (internal/ops/scripts/firewall-nft-apply.sh), run as root: INCOMING
// OUTGOING RULE...: the ruleset /etc/nftables.nft written whole from them
// (its own table inet filter, established and loopback accepted before
// the policy, never flush ruleset), checked with nft -c, installed by
// rename, mode 600, and loaded with nft -f.
const OpNftApply plan.OpName = "firewall-nft-apply"

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
		in, out := detect.FirewallPolicies(f)
		args := []string{in, out}
		for _, a := range f.Allow {
			args = append(args, detect.FirewallRule(a))
		}
		return []plan.Step{op(OpNftApply, args...)}
	}
	all := v == observation.Absent
	missing := map[int]bool{}
	policies := map[string]bool{}
	for _, d := range drift {
		if i, ok := ruleIndex(d.Field); ok {
			missing[i] = true
			continue
		}
		policies[d.Field] = true
	}
	steps := []plan.Step{}
	for i, a := range f.Allow {
		if all || missing[i] {
			steps = append(steps, op(OpUfwAllow, detect.FirewallRule(a)))
		}
	}
	in, out := detect.FirewallPolicies(f)
	if all || policies[detect.FieldFirewallIncoming] {
		steps = append(steps, op(OpUfwDefault, "incoming", in))
	}
	if all || policies[detect.FieldFirewallOutgoing] {
		steps = append(steps, op(OpUfwDefault, "outgoing", out))
	}
	return append(steps, op(OpUfwEnable))
}

// ruleIndex reads i from a drift field allow[i].
func ruleIndex(field string) (int, bool) {
	s, ok := strings.CutPrefix(field, "allow[")
	if !ok {
		return 0, false
	}
	s, ok = strings.CutSuffix(s, "]")
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(s)
	return i, err == nil && i >= 0 && detect.FirewallRuleField(i) == field
}
