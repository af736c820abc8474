package firewall

import (
	"strconv"
	"strings"

	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// The operations of a ufw firewall's change
// (scripts/firewall-ufw-*.sh), each run as root.
const (
	OpUfwAllow   plan.OpName = "firewall-ufw-allow"   // RULE: ufw allow RULE (PORT, PORT/PROTO or a profile)
	OpUfwDefault plan.OpName = "firewall-ufw-default" // DIRECTION POLICY: ufw default POLICY DIRECTION
	OpUfwEnable  plan.OpName = "firewall-ufw-enable"  // ufw --force enable
)

// OpNftApply is an nftables firewall's one operation
// (scripts/firewall-nft-apply.sh), run as root: INCOMING
// OUTGOING RULE...: the ruleset /etc/nftables.nft written whole from them
// (its own table inet filter, established and loopback accepted before
// the policy, never flush ruleset), checked with nft -c, installed by
// rename, mode 600, and loaded with nft -f.
const OpNftApply plan.OpName = "firewall-nft-apply"

// The parts of a firewall's drift: each default policy that differs (its
// field the declaration's), and each declared allow rule that is missing
// (field allow[i], observed FirewallMissing, desired the rule as the
// backend writes it). The planner reads them to pick the steps.
const (
	FieldFirewallIncoming = "default_incoming"
	FieldFirewallOutgoing = "default_outgoing"
	FirewallMissing       = "missing"
)

// FirewallRuleField is the drift field of the declaration's allow[i].
func FirewallRuleField(i int) string { return "allow[" + strconv.Itoa(i) + "]" }

// FirewallRuleIndex reads i from a drift field FirewallRuleField(i).
func FirewallRuleIndex(field string) (int, bool) {
	s, ok := strings.CutPrefix(field, "allow[")
	if !ok {
		return 0, false
	}
	s, ok = strings.CutSuffix(s, "]")
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(s)
	return i, err == nil && i >= 0 && FirewallRuleField(i) == field
}

// The default policies resources.md gives an undeclared default_incoming
// and default_outgoing.
const (
	DefaultIncoming = "deny"
	DefaultOutgoing = "allow"
)

// FirewallPolicies returns f's effective incoming and outgoing policies:
// as declared, else the defaults.
func FirewallPolicies(f *declaration.Firewall) (incoming, outgoing string) {
	incoming, outgoing = f.DefaultIncoming, f.DefaultOutgoing
	if incoming == "" {
		incoming = DefaultIncoming
	}
	if outgoing == "" {
		outgoing = DefaultOutgoing
	}
	return incoming, outgoing
}

// FirewallRule is an allow rule as ufw allow takes it and ufw status
// writes its To column: a profile's name, or PORT/PROTO (PORT alone for
// proto any). It is how either backend's drift and steps name the rule.
func FirewallRule(a declaration.AllowRule) string {
	if a.Port == 0 {
		return a.Profile
	}
	p := strconv.Itoa(a.Port)
	switch a.Proto {
	case "", "tcp":
		return p + "/tcp"
	case "any":
		return p
	}
	return p + "/" + a.Proto
}
