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

// ufwTimeout is each ufw operation's limit, in seconds.
const ufwTimeout = 120

// firewallSteps are a firewall's steps, from its drift: for ufw, a ufw
// allow for each missing rule, then ufw default for each policy that
// differs, then ufw --force enable (which also makes it start at boot). A
// firewall read absent (no ufw yet, or inactive) gets every rule and both
// policies. The rules come first, so a default deny never stands, even for
// a moment, on an active firewall without the declared allow for the SSH
// session's port. An nftables firewall has none: this zap doesn't read it,
// so it holds and never reaches here.
func firewallSteps(f *declaration.Firewall, v observation.Verdict, drift []observation.Difference) []plan.Step {
	if f.Backend != "ufw" {
		return []plan.Step{}
	}
	op := func(name plan.OpName, args ...string) plan.Step {
		return plan.Step{Type: plan.StepOp, Op: &plan.Op{Name: name, Args: args, Privilege: plan.Root, Timeout: ufwTimeout}}
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
			steps = append(steps, op(OpUfwAllow, detect.UfwRule(a)))
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
