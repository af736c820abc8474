// Package firewall is the firewall kind: allow rules and default
// policies, on ufw or nftables. Its wire form is
// pkg/declaration/kind_firewall.go; here are its reads (Ufw and Nft), its
// steps and the names they share with the reads (names.go), the ruleset
// firewall-nft-apply writes as the plan shows it, its operations' scripts
// (scripts/, which Kind hands internal/ops), the ufw ones' wording
// (words.go) and their tests; the scripts' own tests run with
// internal/ops' (firewall_test.go, firewall_nft_test.go), whose shells
// they share. internal/kinds lists Kind.
package firewall

import (
	"embed"
	"fmt"
	"strings"

	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// Kind is the firewall kind, as root.
var Kind = kind.Def[*declaration.Firewall]{Name: declaration.KindFirewall, Read: NewFirewall, Plan: steps, As: plan.Root, Ops: scripts, Word: word,
	Text: map[plan.OpName]func([]string) (kind.Body, bool){OpNftApply: nftRulesetBody}, Doc: doc}

//go:embed scripts/*.sh
var scripts embed.FS

// steps, from the drift: for ufw, a ufw allow for each missing
// rule, then ufw default for each policy that differs, then ufw --force
// enable (which also makes it start at boot). A firewall read absent (no ufw yet, or
// inactive) gets every rule and both policies. The rules come first, so a
// default deny never stands, even for a moment, on an active firewall
// without the declared allow for the SSH session's port. An nftables
// firewall's ruleset is declarative: whatever drifted, its one step writes
// and loads the whole table again (firewall-nft-apply INCOMING OUTGOING
// RULE...).
func steps(f *declaration.Firewall, at kind.Planned) ([]plan.Step, error) {
	op := kind.RootOps(120) // seconds, for each firewall operation
	if f.Backend == "nftables" {
		in, out := FirewallPolicies(f)
		args := []string{in, out}
		for _, a := range f.Allow {
			args = append(args, FirewallRule(a))
		}
		return []plan.Step{op(OpNftApply, args...)}, nil
	}
	all := at.Verdict == observation.Absent
	missing := map[int]bool{}
	policies := map[string]bool{}
	for _, d := range at.Drift {
		if i, ok := FirewallRuleIndex(d.Field); ok {
			missing[i] = true
			continue
		}
		policies[d.Field] = true
	}
	steps := []plan.Step{}
	for i, a := range f.Allow {
		if all || missing[i] {
			steps = append(steps, op(OpUfwAllow, FirewallRule(a)))
		}
	}
	in, out := FirewallPolicies(f)
	if all || policies[FieldFirewallIncoming] {
		steps = append(steps, op(OpUfwDefault, "incoming", in))
	}
	if all || policies[FieldFirewallOutgoing] {
		steps = append(steps, op(OpUfwDefault, "outgoing", out))
	}
	return append(steps, op(OpUfwEnable)), nil
}

// nftRulesetBody: the ruleset firewall-nft-apply INCOMING OUTGOING RULE...
// writes at /etc/nftables.nft, whole, as the script prints it (a test
// holds the two to one form). Arguments the script refuses write nothing.
func nftRulesetBody(args []string) (kind.Body, bool) {
	if len(args) < 2 {
		return kind.Body{}, false
	}
	policy := map[string]string{"allow": "accept", "deny": "drop", "reject": "drop"}
	in, out := args[0], args[1]
	if policy[in] == "" || policy[out] == "" {
		return kind.Body{}, false
	}
	var b strings.Builder
	chain := func(name, p, iface string) {
		fmt.Fprintf(&b, "\tchain %s {\n\t\ttype filter hook %s priority filter; policy %s;\n", name, name, policy[p])
		fmt.Fprintf(&b, "\t\tct state established,related accept\n\t\t%s \"lo\" accept\n", iface)
	}
	b.WriteString("#!/usr/sbin/nft -f\n" +
		"# Written whole by Zap (a firewall resource, backend nftables): edits are\n" +
		"# replaced on its next apply. Only the table inet filter is replaced.\n" +
		"table inet filter\ndelete table inet filter\ntable inet filter {\n")
	chain("input", in, "iif")
	for _, r := range args[2:] {
		i := strings.LastIndex(r, "/")
		if proto := r[i+1:]; i >= 0 && (proto == "tcp" || proto == "udp") {
			fmt.Fprintf(&b, "\t\t%s dport %s accept\n", proto, r[:i])
		} else {
			fmt.Fprintf(&b, "\t\ttcp dport %s accept\n\t\tudp dport %s accept\n", r, r)
		}
	}
	if in == "reject" {
		b.WriteString("\t\treject\n")
	}
	b.WriteString("\t}\n")
	chain("output", out, "oif")
	if out == "reject" {
		b.WriteString("\t\treject\n")
	}
	b.WriteString("\t}\n}\n")
	return kind.Body{Field: "text", Text: b.String()}, true
}
