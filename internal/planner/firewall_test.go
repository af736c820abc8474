package planner

import (
	"reflect"
	"testing"

	"github.com/zap-go/zap/internal/kinds/firewall"
	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

func firewallRes(id string, f declaration.Firewall) declaration.Resource {
	return declaration.Resource{Common: declaration.Common{ID: id, Type: declaration.KindFirewall}, Body: &f}
}

func ruleMissing(i int, rule string) observation.Difference {
	return observation.Difference{Field: firewall.FirewallRuleField(i), Observed: firewall.FirewallMissing, Desired: rule}
}

// TestFirewallSteps: which steps for which drift. An absent ufw gets every
// rule, both policies (declared or the defaults deny and allow) and the
// enable; a drifted one only its missing rules and differing policies,
// then the enable. Rules come before policies.
func TestFirewallSteps(t *testing.T) {
	fw := firewallRes("fw", declaration.Firewall{Backend: "ufw", Allow: []declaration.AllowRule{
		{Profile: "OpenSSH"}, {Port: 80}, {Port: 53, Proto: "udp"}, {Port: 60000, Proto: "any"}, {Profile: "Nginx Full"}}})
	strict := firewallRes("fw", declaration.Firewall{Backend: "ufw", Allow: []declaration.AllowRule{{Port: 22}},
		DefaultIncoming: "reject", DefaultOutgoing: "deny"})
	allow := func(r string) string { return "firewall-ufw-allow |  | " + r }
	def := func(dir, p string) string { return "firewall-ufw-default |  | " + dir + " | " + p }
	enable := "firewall-ufw-enable | "
	for _, c := range []struct {
		name string
		e    entry
		want []string
	}{
		{"absent", absent(fw), []string{allow("OpenSSH"), allow("80/tcp"), allow("53/udp"), allow("60000"), allow("Nginx Full"),
			def("incoming", "deny"), def("outgoing", "allow"), enable}},
		{"absent, declared policies", absent(strict), []string{allow("22/tcp"), def("incoming", "reject"), def("outgoing", "deny"), enable}},
		{"one rule missing", drifted(fw, ruleMissing(4, "Nginx Full")), []string{allow("Nginx Full"), enable}},
		{"two rules missing", drifted(fw, ruleMissing(0, "OpenSSH"), ruleMissing(2, "53/udp")), []string{allow("OpenSSH"), allow("53/udp"), enable}},
		{"the incoming policy differs", drifted(fw, observation.Difference{Field: firewall.FieldFirewallIncoming, Observed: "allow", Desired: "deny"}),
			[]string{def("incoming", "deny"), enable}},
		{"both policies and a rule", drifted(strict,
			observation.Difference{Field: firewall.FieldFirewallOutgoing, Observed: "allow", Desired: "deny"},
			ruleMissing(0, "22/tcp"),
			observation.Difference{Field: firewall.FieldFirewallIncoming, Observed: "deny", Desired: "reject"}),
			[]string{allow("22/tcp"), def("incoming", "reject"), def("outgoing", "deny"), enable}},
	} {
		t.Run(c.name, func(t *testing.T) {
			wantOneChange(t, c.e, c.want)
		})
	}
}

// A converged firewall has no change; a held one is held. The plan's
// resource is a copy.
func TestFirewallConvergedHeldClone(t *testing.T) {
	fw := firewallRes("fw", declaration.Firewall{Backend: "ufw", Allow: []declaration.AllowRule{{Profile: "OpenSSH"}}})
	if p := mustPlan(t, observe(converged(fw))); len(p.Changes) != 0 {
		t.Errorf("a converged firewall plans %v", changeIDs(p))
	}
	nft := firewallRes("fw", declaration.Firewall{Backend: "nftables", Allow: []declaration.AllowRule{{Port: 22}}})
	on := true
	svc := declaration.Resource{Common: declaration.Common{ID: "nftables", Type: declaration.KindService},
		Body: &declaration.Service{Service: "nftables", Enabled: &on}}
	o := observe(converged(svc), undetermined(nft, "reading the nftables table inet filter timed out after 30s"))
	o.Declaration.Target.ServiceManager = "systemd"
	p := mustPlan(t, o)
	if len(p.Changes) != 0 || len(p.Held) != 1 {
		t.Errorf("held firewall: changes %v, held %+v", changeIDs(p), p.Held)
	}
	o = observe(absent(fw))
	p = mustPlan(t, o)
	declaration.BodyOf[*declaration.Firewall](&o.Declaration.Resources[0]).Allow[0].Profile = "Other"
	if got := declaration.BodyOf[*declaration.Firewall](&p.Changes[0].Resource); got == nil || got.Allow[0].Profile != "OpenSSH" {
		t.Errorf("the plan shares the observations' firewall: %+v", got)
	}
}

// TestNftSteps: an nftables firewall, absent or drifted in any part, gets
// its one step, the whole table from the declaration: the effective
// policies, then each rule as PORT/PROTO (PORT for any).
func TestNftSteps(t *testing.T) {
	on := true
	svc := declaration.Resource{Common: declaration.Common{ID: "nftables", Type: declaration.KindService},
		Body: &declaration.Service{Service: "nftables", Enabled: &on}}
	fw := firewallRes("fw", declaration.Firewall{Backend: "nftables", Allow: []declaration.AllowRule{{Port: 22}, {Port: 53, Proto: "udp"}, {Port: 5353, Proto: "any"}}})
	strict := firewallRes("fw", declaration.Firewall{Backend: "nftables", Allow: []declaration.AllowRule{{Port: 22}}, DefaultIncoming: "reject", DefaultOutgoing: "deny"})
	for _, c := range []struct {
		name string
		e    entry
		want []string
	}{
		{"absent", absent(fw), []string{"firewall-nft-apply |  | deny | allow | 22/tcp | 53/udp | 5353"}},
		{"a rule missing", drifted(fw, ruleMissing(1, "53/udp")), []string{"firewall-nft-apply |  | deny | allow | 22/tcp | 53/udp | 5353"}},
		{"a chain missing", drifted(strict, observation.Difference{Field: firewall.FieldFirewallOutgoing, Observed: firewall.FirewallMissing, Desired: "deny"}),
			[]string{"firewall-nft-apply |  | reject | deny | 22/tcp"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := observe(converged(svc), c.e)
			o.Declaration.Target.ServiceManager = "systemd"
			p := mustPlan(t, o)
			if len(p.Changes) != 1 {
				t.Fatalf("%d changes", len(p.Changes))
			}
			if got := swapOps(t, p.Changes[0]); !reflect.DeepEqual(got, c.want) {
				t.Errorf("steps\n%q\nwant\n%q", got, c.want)
			}
			if _, ok := ops.Script(firewall.OpNftApply); !ok {
				t.Errorf("no script for %s", firewall.OpNftApply)
			}
			if _, err := plan.Hash(p, ops.Script); err != nil {
				t.Errorf("hash: %v", err)
			}
		})
	}
}
