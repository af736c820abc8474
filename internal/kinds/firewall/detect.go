package firewall

import (
	"errors"
	"fmt"
	"github.com/zap-go/zap/internal/detect"
	"strings"

	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// UfwProbe prints ufw's status, verbose for its Default: line, in the C
// locale; run as root (ufw refuses anyone else). A ufw that isn't there
// fails the probe (127), which reads absent.
const UfwProbe = `LC_ALL=C; export LC_ALL
PATH=${PATH:-/usr/bin:/bin}:/usr/sbin:/sbin
exec ufw status verbose`

// Ufw detects a ufw firewall by one read, ufw status verbose as root.
// Converged is an active ufw whose default incoming and outgoing policies
// are the declared ones and which lists each declared rule; a probe that
// fails (no ufw yet) or an inactive ufw reads absent (detection.md: the
// steps are the same either way); anything else drifted, naming each
// missing rule and each policy that differs. Rules added out of band are
// not read.
type Ufw struct {
	Allow              []declaration.AllowRule
	Incoming, Outgoing string
}

// NewFirewall makes a firewall's detector, its backend's (Ufw, Nft).
func NewFirewall(f *declaration.Firewall, _ detect.Env) detect.Detector {
	in, out := FirewallPolicies(f)
	switch f.Backend {
	case "ufw":
		return &Ufw{Allow: f.Allow, Incoming: in, Outgoing: out}
	case "nftables":
		for i, a := range f.Allow {
			if a.Port == 0 {
				return detect.Held(FirewallRuleField(i) + ": nftables has no application profiles: write a port rule, such as {port: 22}")
			}
		}
		return &Nft{Allow: f.Allow, Incoming: in, Outgoing: out}
	}
	return detect.Held(fmt.Sprintf("backend: this zap can't read a %q firewall", f.Backend))
}

// Queries: ufw status verbose, as root.
func (u *Ufw) Queries() []detect.Query {
	return []detect.Query{detect.NewProbe(observation.LaneRoot, UfwProbe)}
}

// Verdict: see Ufw. A status that doesn't parse, or has no Default: line
// with both policies, holds.
func (u *Ufw) Verdict(a []detect.Answer) detect.Result {
	r, reason := firewallRead(a, "ufw's status")
	if reason != "" {
		return detect.Holding(reason)
	}
	if r.Exit != 0 {
		// Not set up yet: no ufw (127), or one that can't report.
		return detect.Absent()
	}
	st, err := ParseUfwStatus(r.Output)
	if err != nil {
		return detect.Holding("ufw status verbose: " + err.Error())
	}
	if !st.Active {
		return detect.Absent()
	}
	if st.Incoming == "" || st.Outgoing == "" {
		return detect.Holding("ufw status verbose printed no Default: line with the incoming and outgoing policies: Zap can't tell the firewall's defaults")
	}
	return firewallVerdict(u.Allow, st.Allows, [2]string{st.Incoming, st.Outgoing}, [2]string{u.Incoming, u.Outgoing})
}

// firewallRead is a firewall's one read, or the reason to hold: other
// than one answer, or a probe that didn't run (what names what it read).
func firewallRead(a []detect.Answer, what string) (detect.Answer, string) {
	if len(a) != 1 {
		return detect.Answer{}, fmt.Sprintf("%d answers for the firewall's 1 read", len(a))
	}
	if a[0].Status != detect.StatusOK {
		return detect.Answer{}, detect.Problem(a[0], what, vocab.ProbeTimeout)
	}
	return a[0], ""
}

// firewallVerdict is the verdict of a firewall read whole, either backend:
// a difference for each declared rule allows doesn't find, in declared
// order, then for the incoming and the outgoing policy, each where the
// observed one isn't the desired one.
func firewallVerdict(allow []declaration.AllowRule, allows func(declaration.AllowRule) bool, observed, desired [2]string) detect.Result {
	var d []observation.Difference
	for i, rule := range allow {
		if !allows(rule) {
			d = append(d, observation.Difference{Field: FirewallRuleField(i), Observed: FirewallMissing, Desired: FirewallRule(rule)})
		}
	}
	for i, field := range [2]string{FieldFirewallIncoming, FieldFirewallOutgoing} {
		if observed[i] != desired[i] {
			d = append(d, observation.Difference{Field: field, Observed: observed[i], Desired: desired[i]})
		}
	}
	if len(d) == 0 {
		return detect.Converged()
	}
	return detect.Drifted(d)
}

// UfwStatus is what ufw status verbose says.
type UfwStatus struct {
	Active bool
	// Incoming and Outgoing are the Default: line's policies ("" when
	// the status has none).
	Incoming, Outgoing string
	Rows               []UfwRow
}

// UfwRow is one row of the status's rule table.
type UfwRow struct {
	// To is the To column with ufw's (v6) mark taken out: "22/tcp",
	// "22/tcp (OpenSSH)", "8080/tcp on lo".
	To string
	// Action is the Action column: "ALLOW IN", "DENY IN", "ALLOW OUT"...
	Action string
	// From is the From column, its (v6) mark and any comment taken out.
	From string
	// V6 is a row of the IPv6 rules (From ends in (v6)).
	V6 bool
}

// Allows reports whether the status lists rule as the row ufw allow
// writes for it: an IPv4 ALLOW IN from Anywhere whose To column is the
// rule whole; a profile's either its bare name or the verbose
// "<ports>/<proto> (<name>)".
func (s *UfwStatus) Allows(rule declaration.AllowRule) bool {
	want := FirewallRule(rule)
	for _, r := range s.Rows {
		if r.V6 || r.Action != "ALLOW IN" || r.From != "Anywhere" {
			continue
		}
		if r.To == want {
			return true
		}
		if rule.Port == 0 {
			if ports, ok := strings.CutSuffix(r.To, " ("+want+")"); ok && ports != "" && !strings.ContainsAny(ports, " \t()") {
				return true
			}
		}
	}
	return false
}

// ufwActions are the first words of the Action column.
var ufwActions = []string{"ALLOW", "DENY", "REJECT", "LIMIT"}

// ParseUfwStatus parses the output of ufw status verbose (ufw 0.36, C
// locale; testdata/ufw has recorded outputs): a Status: line first, then
// for an active ufw its Default: line and the rule table under the To /
// Action / From header. A row's columns are found by its action, the
// first of ALLOW, DENY, REJECT or LIMIT (with IN, OUT or FWD) standing
// between blanks.
func ParseUfwStatus(out string) (UfwStatus, error) {
	var st UfwStatus
	lines := strings.Split(out, "\n")
	first, ok := strings.CutPrefix(lines[0], "Status: ")
	if !ok {
		return st, errors.New("the output doesn't begin with a Status: line")
	}
	switch strings.TrimSpace(first) {
	case "active":
		st.Active = true
	case "inactive":
		return st, nil
	default:
		return st, fmt.Errorf("the status %q is neither active nor inactive", strings.TrimSpace(first))
	}
	table := false
	for i := 1; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], " \t\r")
		switch {
		case line == "":
			continue
		case !table && strings.HasPrefix(line, "Default: "):
			in, out, err := ufwDefaults(strings.TrimPrefix(line, "Default: "))
			if err != nil {
				return st, err
			}
			st.Incoming, st.Outgoing = in, out
		case !table && ufwHeader(line):
			if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "--") {
				return st, errors.New("the rule table's header has no -- line under it")
			}
			table = true
			i++
		case table:
			row, err := ufwRow(line)
			if err != nil {
				return st, err
			}
			st.Rows = append(st.Rows, row)
		}
	}
	return st, nil
}

// ufwHeader reports whether line is the rule table's header, To Action
// From.
func ufwHeader(line string) bool {
	f := strings.Fields(line)
	return len(f) == 3 && f[0] == "To" && f[1] == "Action" && f[2] == "From"
}

// ufwDefaults parses "deny (incoming), allow (outgoing), disabled
// (routed)".
func ufwDefaults(s string) (incoming, outgoing string, err error) {
	for part := range strings.SplitSeq(s, ",") {
		f := strings.Fields(part)
		if len(f) != 2 {
			return "", "", fmt.Errorf("the Default: line's %q is not POLICY (DIRECTION)", strings.TrimSpace(part))
		}
		switch f[1] {
		case "(incoming)":
			incoming = f[0]
		case "(outgoing)":
			outgoing = f[0]
		}
	}
	return incoming, outgoing, nil
}

// ufwRow parses one row of the rule table.
func ufwRow(line string) (UfwRow, error) {
	for i := 1; i < len(line); i++ {
		if line[i-1] != ' ' {
			continue
		}
		for _, act := range ufwActions {
			rest, ok := strings.CutPrefix(line[i:], act)
			if !ok {
				continue
			}
			action := act
			for _, dir := range []string{" IN", " OUT", " FWD"} {
				if r, ok := strings.CutPrefix(rest, dir); ok {
					action, rest = act+dir, r
					break
				}
			}
			if rest != "" && rest[0] != ' ' {
				continue
			}
			to := strings.TrimRight(line[:i], " ")
			from := strings.TrimSpace(rest)
			if to == "" || from == "" {
				continue
			}
			if j := strings.Index(from, " #"); j >= 0 {
				from = strings.TrimSpace(from[:j])
			}
			row := UfwRow{To: to, Action: action, From: from}
			if f, ok := strings.CutSuffix(from, " (v6)"); ok {
				row.V6, row.From = true, f
				if j := strings.LastIndex(to, " (v6)"); j >= 0 {
					row.To = to[:j] + to[j+len(" (v6)"):]
				}
			}
			return row, nil
		}
	}
	return UfwRow{}, fmt.Errorf("the rule row %q has no action (ALLOW, DENY, REJECT or LIMIT)", line)
}
