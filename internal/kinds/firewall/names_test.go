package firewall

import "testing"

func TestFirewallRuleIndex(t *testing.T) {
	for field, want := range map[string]int{"allow[0]": 0, "allow[12]": 12} {
		if i, ok := FirewallRuleIndex(field); !ok || i != want {
			t.Errorf("FirewallRuleIndex(%q) = %d, %v", field, i, ok)
		}
	}
	for _, field := range []string{"allow", "allow[]", "allow[-1]", "allow[01]", "allow[1", "default_incoming", "xallow[1]"} {
		if i, ok := FirewallRuleIndex(field); ok {
			t.Errorf("FirewallRuleIndex(%q) = %d, took it", field, i)
		}
	}
}
