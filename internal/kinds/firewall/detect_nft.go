package firewall

import (
	"errors"
	"fmt"
	"github.com/zap-go/zap/internal/detect"
	"regexp"
	"strconv"
	"strings"

	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// NftRuleset is the file an nftables firewall's ruleset is installed at,
// and NftTable the one table it holds (resources.md).
const (
	NftRuleset = "/etc/nftables.nft"
	NftTable   = "inet filter"
)

// NftProbe lists the firewall's own table, in the C locale; run as root
// (nft needs CAP_NET_ADMIN). No nft (127), or no such table (1), fails the
// probe, which reads absent.
const NftProbe = `LC_ALL=C; export LC_ALL
PATH=${PATH:-/usr/bin:/bin}:/usr/sbin:/sbin
exec nft list table ` + NftTable

// NftRuleLines are the rule lines of the input chain an allow rule is, as
// the ruleset writes them and nft list prints them: one for tcp or udp,
// both for any.
func NftRuleLines(a declaration.AllowRule) []string {
	p := strconv.Itoa(a.Port)
	switch a.Proto {
	case "", "tcp":
		return []string{"tcp dport " + p + " accept"}
	case "udp":
		return []string{"udp dport " + p + " accept"}
	}
	return []string{"tcp dport " + p + " accept", "udp dport " + p + " accept"}
}

// Nft detects an nftables firewall by one read, nft list table inet filter
// as root. Converged is a table whose input base chain has each declared
// rule as a whole rule line, and whose input and output base chains'
// effective policies are the declared ones; a probe that fails (no nft, or
// no table yet) reads absent; anything else drifted, naming each missing
// rule, each policy that differs, and a missing input or output chain (its
// policy observed "missing"). Rules added out of band are not read.
type Nft struct {
	Allow              []declaration.AllowRule
	Incoming, Outgoing string
}

// Queries: nft list table inet filter, as root.
func (n *Nft) Queries() []detect.Query {
	return []detect.Query{detect.NewProbe(observation.LaneRoot, NftProbe)}
}

// Verdict: see Nft. A listing that doesn't parse holds.
func (n *Nft) Verdict(a []detect.Answer) detect.Result {
	r, reason := firewallRead(a, "the nftables table "+NftTable)
	if reason != "" {
		return detect.Holding(reason)
	}
	if r.Exit != 0 {
		return detect.Absent()
	}
	t, err := ParseNftTable(r.Output)
	if err != nil {
		return detect.Holding("nft list table " + NftTable + ": " + err.Error())
	}
	in, out := t.Base("input"), t.Base("output")
	has := func(rule declaration.AllowRule) bool { return in != nil && in.Has(NftRuleLines(rule)...) }
	return firewallVerdict(n.Allow, has, [2]string{in.Effective(), out.Effective()}, [2]string{n.Incoming, n.Outgoing})
}

// NftTableListing is a table as nft list table prints it.
type NftTableListing struct {
	Chains []NftChain
}

// NftChain is one chain of the table: a base chain has a Hook and a
// Policy; Rules are its rule lines, each set aside what doesn't change
// what it admits (NftRule).
type NftChain struct {
	Name, Hook, Policy string
	Rules              []string
}

// Base returns the table's first base chain on hook, or nil.
func (t *NftTableListing) Base(hook string) *NftChain {
	for i := range t.Chains {
		if t.Chains[i].Hook == hook {
			return &t.Chains[i]
		}
	}
	return nil
}

// Has reports whether the chain has every one of lines as a whole rule
// line.
func (c *NftChain) Has(lines ...string) bool {
	for _, l := range lines {
		found := false
		for _, r := range c.Rules {
			if r == l {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// Effective is the chain's effective policy in a firewall's words: its
// policy verb (accept: allow, drop: deny), refined by a trailing bare
// reject rule (reject); "missing" for a chain that isn't there (nil).
func (c *NftChain) Effective() string {
	if c == nil {
		return FirewallMissing
	}
	if n := len(c.Rules); n > 0 && c.Rules[n-1] == "reject" {
		return "reject"
	}
	switch c.Policy {
	case "accept":
		return "allow"
	case "drop":
		return "deny"
	}
	return c.Policy
}

var (
	nftHandle  = regexp.MustCompile(`(\s*# handle [0-9]+)+$`)
	nftCounter = regexp.MustCompile(`(^|\s)counter(\s+packets [0-9]+ bytes [0-9]+)?(\s|$)`)
	nftComment = regexp.MustCompile(`(^|\s)comment "[^"]*"(\s|$)`)
	nftHook    = regexp.MustCompile(`^type \S+ hook (\S+) .*?policy (\S+);`)
)

// NftRule is a rule line with what doesn't change what it admits set
// aside: a counter and its totals, a comment, a # handle; its words
// single-spaced.
func NftRule(line string) string {
	for {
		next := nftHandle.ReplaceAllString(strings.TrimRight(line, " \t"), "")
		for _, re := range []*regexp.Regexp{nftCounter, nftComment} {
			next = re.ReplaceAllString(next, " ")
		}
		next = strings.Join(strings.Fields(next), " ")
		if next == line {
			return line
		}
		line = next
	}
}

// ParseNftTable parses nft list table inet filter (nft 1.0, with or
// without -a; testdata/nft has recorded listings): the table's line, then
// its chains, each `chain NAME {` with a base chain's `type ... hook HOOK
// ... policy POLICY;` line and its rule lines, up to `}`. A set, map or
// other block in the table is skipped whole.
func ParseNftTable(out string) (NftTableListing, error) {
	var t NftTableListing
	lines := strings.Split(out, "\n")
	if strings.TrimSpace(nftHandle.ReplaceAllString(lines[0], "")) != "table "+NftTable+" {" {
		return t, errors.New("the output doesn't begin with the line table " + NftTable + " {")
	}
	var chain *NftChain
	depth := 1 // inside the table
	for _, raw := range lines[1:] {
		line := strings.TrimSpace(nftHandle.ReplaceAllString(raw, ""))
		if line == "" {
			continue
		}
		if depth == 0 {
			return t, fmt.Errorf("a line after the table's end: %q", line)
		}
		opens, closes := nftBraces(line)
		switch {
		case depth == 1 && chain == nil && strings.HasPrefix(line, "chain ") && strings.HasSuffix(line, " {") && opens == 1 && closes == 0:
			name := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(line, "chain "), "{"))
			if name == "" || strings.ContainsAny(name, " \t") {
				return t, fmt.Errorf("a chain line %q with no name", line)
			}
			t.Chains = append(t.Chains, NftChain{Name: name})
			chain = &t.Chains[len(t.Chains)-1]
			depth = 2
		case depth == 2 && chain != nil && line == "}":
			chain, depth = nil, 1
		case depth == 2 && chain != nil && opens == closes:
			rule := NftRule(line)
			if rule == "type" || strings.HasPrefix(rule, "type ") {
				m := nftHook.FindStringSubmatch(rule)
				if m == nil {
					return t, fmt.Errorf("chain %s: a type line %q with no hook and policy", chain.Name, line)
				}
				if chain.Hook != "" || len(chain.Rules) > 0 {
					return t, fmt.Errorf("chain %s: a type line %q after its first", chain.Name, line)
				}
				chain.Hook, chain.Policy = m[1], m[2]
				continue
			}
			chain.Rules = append(chain.Rules, rule)
		case depth == 2 && chain != nil:
			return t, fmt.Errorf("chain %s: a rule line %q whose braces don't balance", chain.Name, line)
		default:
			// The table's own end, or a set, map or flowtable block,
			// skipped.
			depth += opens - closes
			if depth < 0 {
				return t, errors.New("more } than {")
			}
		}
	}
	if depth != 0 {
		return t, errors.New("the table doesn't end")
	}
	return t, nil
}

// nftBraces counts a line's { and } outside double quotes.
func nftBraces(line string) (opens, closes int) {
	quoted := false
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '{':
			opens++
		case c == '}':
			closes++
		}
	}
	return opens, closes
}
