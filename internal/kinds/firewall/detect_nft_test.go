package firewall

import (
	"github.com/zap-go/zap/internal/detect"
	"reflect"
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

func nftRecorded(t testing.TB, name string) string { return recorded(t, "nft", name) }

func TestBuildNft(t *testing.T) {
	d := NewFirewall(&declaration.Firewall{Backend: "nftables", Allow: []declaration.AllowRule{port(22, "")}, DefaultIncoming: "reject"}, detect.Env{})
	n, ok := d.(*Nft)
	if !ok {
		t.Fatalf("an nftables firewall's detector is %T", d)
	}
	if n.Incoming != "reject" || n.Outgoing != "allow" {
		t.Errorf("policies %q %q", n.Incoming, n.Outgoing)
	}
	q := n.Queries()
	if len(q) != 1 || q[0].Op != detect.OpProbe || q[0].Lane != observation.LaneRoot || q[0].Command.Text != NftProbe || !strings.Contains(NftProbe, "nft list table inet filter") {
		t.Errorf("queries: %+v, want nft list table inet filter as root", q)
	}
	p := NewFirewall(&declaration.Firewall{Backend: "nftables", Allow: []declaration.AllowRule{profile("OpenSSH")}}, detect.Env{})
	if got := p.Verdict(nil); got.Verdict != observation.Undetermined || !strings.Contains(got.Reason, "allow[0]: nftables has no application profiles") {
		t.Errorf("a profile on nftables: %+v", got)
	}
}

// TestNftVerdicts: verdicts over nft's real listing (testdata/nft), with
// and without handles.
func TestNftVerdicts(t *testing.T) {
	rules := func(r ...declaration.AllowRule) []declaration.AllowRule { return r }
	for _, name := range []string{"mixed.txt", "mixed-handles.txt", "zap.txt", "zap-handles.txt"} {
		out := nftRecorded(t, name)
		mixed := strings.HasPrefix(name, "mixed")
		cases := []struct {
			name     string
			allow    []declaration.AllowRule
			in, out  string
			answer   detect.Answer
			want     detect.Result
			wantHold string
		}{
			{"no table yet (exit 1)", rules(port(22, "")), "deny", "allow", detect.Answer{Status: detect.StatusOK, Exit: 1}, detect.Absent(), ""},
			{"no nft (exit 127)", rules(port(22, "")), "deny", "allow", detect.Answer{Status: detect.StatusOK, Exit: 127}, detect.Absent(), ""},
			{"timed out", rules(port(22, "")), "deny", "allow", detect.Answer{Status: detect.StatusTimedOut}, detect.Result{}, "timed out after 30s"},
			{"garbage", rules(port(22, "")), "deny", "allow", ufwOut("Error: x\n"), detect.Result{}, "doesn't begin"},
		}
		if mixed {
			cases = append(cases,
				// The input chain is policy drop with a trailing reject:
				// reject. The output chain is accept with a trailing
				// reject: reject too.
				struct {
					name     string
					allow    []declaration.AllowRule
					in, out  string
					answer   detect.Answer
					want     detect.Result
					wantHold string
				}{"rules present, counter and comment set aside", rules(port(22, "tcp"), port(53, "udp"), port(80, "tcp")), "reject", "reject", ufwOut(out), detect.Converged(), ""},
				struct {
					name     string
					allow    []declaration.AllowRule
					in, out  string
					answer   detect.Answer
					want     detect.Result
					wantHold string
				}{"lines that aren't the whole rule", rules(port(25, "tcp"), port(26, "tcp"), port(5353, "any"), port(22, "udp"), port(2, "tcp")), "deny", "allow", ufwOut(out), detect.Drifted([]observation.Difference{
					diff("allow[0]", FirewallMissing, "25/tcp"),
					diff("allow[1]", FirewallMissing, "26/tcp"),
					diff("allow[2]", FirewallMissing, "5353"),
					diff("allow[3]", FirewallMissing, "22/udp"),
					diff("allow[4]", FirewallMissing, "2/tcp"),
					diff(FieldFirewallIncoming, "reject", "deny"),
					diff(FieldFirewallOutgoing, "reject", "allow"),
				}), ""},
			)
		} else {
			cases = append(cases,
				struct {
					name     string
					allow    []declaration.AllowRule
					in, out  string
					answer   detect.Answer
					want     detect.Result
					wantHold string
				}{"the ruleset Zap writes", rules(port(22, ""), port(8081, "tcp"), port(5353, "any")), "deny", "allow", ufwOut(out), detect.Converged(), ""},
				struct {
					name     string
					allow    []declaration.AllowRule
					in, out  string
					answer   detect.Answer
					want     detect.Result
					wantHold string
				}{"another policy declared", rules(port(22, "")), "reject", "deny", ufwOut(out), detect.Drifted([]observation.Difference{
					diff(FieldFirewallIncoming, "deny", "reject"), diff(FieldFirewallOutgoing, "allow", "deny")}), ""},
			)
		}
		for _, c := range cases {
			t.Run(name+"/"+c.name, func(t *testing.T) {
				n := &Nft{Allow: c.allow, Incoming: c.in, Outgoing: c.out}
				got := n.Verdict([]detect.Answer{c.answer})
				if c.wantHold != "" {
					if got.Verdict != observation.Undetermined || !strings.Contains(got.Reason, c.wantHold) {
						t.Errorf("got %+v, want held with %q", got, c.wantHold)
					}
					return
				}
				if !reflect.DeepEqual(got, c.want) {
					t.Errorf("verdict:\n got %+v\nwant %+v", got, c.want)
				}
			})
		}
	}
}

// A missing input or output chain drifts as missing, each of its rules
// too.
func TestNftMissingChains(t *testing.T) {
	n := &Nft{Allow: []declaration.AllowRule{port(22, "")}, Incoming: "deny", Outgoing: "allow"}
	got := n.Verdict([]detect.Answer{ufwOut("table inet filter {\n\tchain forward {\n\t\ttype filter hook forward priority filter; policy drop;\n\t}\n}\n")})
	want := detect.Drifted([]observation.Difference{
		diff("allow[0]", FirewallMissing, "22/tcp"),
		diff(FieldFirewallIncoming, FirewallMissing, "deny"),
		diff(FieldFirewallOutgoing, FirewallMissing, "allow"),
	})
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	// A chain named input that isn't a base chain isn't the input chain.
	got = n.Verdict([]detect.Answer{ufwOut("table inet filter {\n\tchain input {\n\t\ttcp dport 22 accept\n\t}\n\tchain out {\n\t\ttype filter hook output priority 0; policy accept;\n\t}\n}\n")})
	want = detect.Drifted([]observation.Difference{diff("allow[0]", FirewallMissing, "22/tcp"), diff(FieldFirewallIncoming, FirewallMissing, "deny")})
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

func TestNftRule(t *testing.T) {
	for in, want := range map[string]string{
		"tcp dport 80 counter packets 12 bytes 3400 accept comment \"web\" # handle 7": "tcp dport 80 accept",
		"counter tcp dport 80 accept":               "tcp dport 80 accept",
		"tcp dport 80 counter accept":               "tcp dport 80 accept",
		"  tcp   dport 22 accept ":                  "tcp dport 22 accept",
		"counter packets 1 bytes 2 reject":          "reject",
		"ip saddr 1.2.3.4 tcp dport 22 accept":      "ip saddr 1.2.3.4 tcp dport 22 accept",
		"tcp dport 22 accept comment \"a counter\"": "tcp dport 22 accept",
	} {
		if got := NftRule(in); got != want {
			t.Errorf("NftRule(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestParseNftTable: sets and maps are skipped, a bad listing refused.
func TestParseNftTable(t *testing.T) {
	tab, err := ParseNftTable("table inet filter {\n\tset blocked {\n\t\ttype ipv4_addr\n\t\telements = { 1.2.3.4,\n\t\t\t     5.6.7.8 }\n\t}\n\n\tchain input {\n\t\ttype filter hook input priority filter; policy drop;\n\t\tip saddr @blocked drop\n\t\ttcp dport { 80, 443 } accept\n\t}\n}\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []NftChain{{Name: "input", Hook: "input", Policy: "drop", Rules: []string{"ip saddr @blocked drop", "tcp dport { 80, 443 } accept"}}}
	if !reflect.DeepEqual(tab.Chains, want) {
		t.Errorf("chains %+v", tab.Chains)
	}
	for _, bad := range []string{
		"", "table ip filter {\n}\n", "table inet filter {\n\tchain input {\n", "table inet filter {\n}\n}\n",
		"table inet filter {\n\tchain input {\n\t\ttype filter hook input priority 0;\n\t}\n}\n",
		"table inet filter {\n\tchain input {\n\t\ttcp dport { 80,\n\t}\n}\n",
		"table inet filter {\n}\nextra\n",
	} {
		if _, err := ParseNftTable(bad); err == nil {
			t.Errorf("ParseNftTable(%q) took it", bad)
		}
	}
}

// FuzzNftTable: the parser never panics; what it takes has only named
// chains and normalized rule lines, and a chain it reads back from its
// own rendering has the same rules.
func FuzzNftTable(f *testing.F) {
	for _, name := range []string{"mixed.txt", "mixed-handles.txt", "zap.txt", "zap-handles.txt"} {
		f.Add(nftRecorded(f, name))
	}
	f.Fuzz(func(t *testing.T, out string) {
		tab, err := ParseNftTable(out)
		if err != nil {
			return
		}
		var b strings.Builder
		b.WriteString("table inet filter {\n")
		for _, c := range tab.Chains {
			if c.Name == "" {
				t.Fatalf("a chain with no name: %+v", c)
			}
			b.WriteString("\tchain " + c.Name + " {\n")
			if c.Hook != "" {
				b.WriteString("\t\ttype filter hook " + c.Hook + " priority 0; policy " + c.Policy + ";\n")
			}
			for _, r := range c.Rules {
				if r != NftRule(r) {
					t.Fatalf("a rule line %q not normalized (%q)", r, NftRule(r))
				}
				if r == "" {
					continue
				}
				b.WriteString("\t\t" + r + "\n")
			}
			b.WriteString("\t}\n")
		}
		b.WriteString("}\n")
		back, err := ParseNftTable(b.String())
		if err != nil {
			t.Fatalf("its own rendering doesn't parse: %v\n%s", err, b.String())
		}
		if len(back.Chains) != len(tab.Chains) {
			t.Fatalf("%d chains read back, want %d", len(back.Chains), len(tab.Chains))
		}
		for i, c := range back.Chains {
			var want []string
			for _, r := range tab.Chains[i].Rules {
				if r != "" {
					want = append(want, r)
				}
			}
			if c.Name != tab.Chains[i].Name || c.Hook != tab.Chains[i].Hook || c.Policy != tab.Chains[i].Policy || !reflect.DeepEqual(c.Rules, want) {
				t.Fatalf("chain read back %+v, want %+v", c, tab.Chains[i])
			}
		}
	})
}
