package firewall

import (
	"github.com/zap-go/zap/internal/detect"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// recorded reads one of the outputs of tool (ufw, nft) recorded from the
// systemd lab host (testdata/<tool>/README).
func recorded(t testing.TB, tool, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", tool, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func ufwRecorded(t testing.TB, name string) string { return recorded(t, "ufw", name) }

func port(n int, proto string) declaration.AllowRule {
	return declaration.AllowRule{Port: n, Proto: proto}
}

func profile(name string) declaration.AllowRule { return declaration.AllowRule{Profile: name} }

func ufwOut(out string) detect.Answer { return detect.Answer{Status: detect.StatusOK, Output: out} }

func TestFirewallRule(t *testing.T) {
	for _, c := range []struct {
		rule declaration.AllowRule
		want string
	}{
		{port(22, ""), "22/tcp"},
		{port(22, "tcp"), "22/tcp"},
		{port(53, "udp"), "53/udp"},
		{port(53, "any"), "53"},
		{profile("Nginx Full"), "Nginx Full"},
	} {
		if got := FirewallRule(c.rule); got != c.want {
			t.Errorf("FirewallRule(%+v) = %q, want %q", c.rule, got, c.want)
		}
	}
}

func TestBuildFirewall(t *testing.T) {
	d := NewFirewall(&declaration.Firewall{Backend: "ufw", Allow: []declaration.AllowRule{profile("OpenSSH")}}, detect.Env{})
	u, ok := d.(*Ufw)
	if !ok {
		t.Fatalf("a ufw firewall's detector is %T", d)
	}
	if u.Incoming != "deny" || u.Outgoing != "allow" {
		t.Errorf("the defaults are %q and %q, want deny and allow (resources.md)", u.Incoming, u.Outgoing)
	}
	q := u.Queries()
	if len(q) != 1 || q[0].Op != detect.OpProbe || q[0].Lane != observation.LaneRoot || q[0].Command.Text != UfwProbe || q[0].Command.Timeout != vocab.ProbeTimeout {
		t.Errorf("queries: %+v, want the ufw probe as root", q)
	}
	if !strings.Contains(UfwProbe, "LC_ALL=C") || !strings.Contains(UfwProbe, "ufw status verbose") {
		t.Errorf("the probe %q doesn't run ufw status verbose in the C locale", UfwProbe)
	}
}

// TestUfwVerdicts: verdicts over ufw's real output, recorded on the lab
// host (testdata/ufw).
func TestUfwVerdicts(t *testing.T) {
	active := ufwRecorded(t, "active-verbose.txt")
	reject := ufwRecorded(t, "reject-verbose.txt")
	rules := func(r ...declaration.AllowRule) []declaration.AllowRule { return r }
	cases := []struct {
		name     string
		allow    []declaration.AllowRule
		in, out  string
		answer   detect.Answer
		want     detect.Result
		wantHold string
	}{
		{"every kind of rule present", rules(profile("OpenSSH"), port(22, "tcp"), port(53, "any"), port(123, "udp"), profile("Nginx Full"), port(9000, "tcp")), "deny", "allow", ufwOut(active), detect.Converged(), ""},
		{"no rule declared", nil, "deny", "allow", ufwOut(active), detect.Converged(), ""},
		{"inactive", rules(port(22, "")), "deny", "allow", ufwOut(ufwRecorded(t, "inactive.txt")), detect.Absent(), ""},
		{"no ufw (the probe exits 127)", rules(port(22, "")), "deny", "allow", detect.Answer{Status: detect.StatusOK, Exit: 127}, detect.Absent(), ""},
		{"not root (exit 1)", rules(port(22, "")), "deny", "allow", detect.Answer{Status: detect.StatusOK, Exit: 1, Output: ""}, detect.Absent(), ""},
		{"timed out", rules(port(22, "")), "deny", "allow", detect.Answer{Status: detect.StatusTimedOut}, detect.Result{}, "timed out after 30s"},
		{"sudo refused", rules(port(22, "")), "deny", "allow", detect.Answer{Status: detect.StatusSudoFailed}, detect.Result{}, detect.SudoFailed},
		{"failed to run", rules(port(22, "")), "deny", "allow", detect.Answer{Status: detect.StatusFailed, Detail: "killed"}, detect.Result{}, "failed: killed"},
		{"no Default: line (plain ufw status)", rules(port(22, "")), "deny", "allow", ufwOut(ufwRecorded(t, "plain.txt")), detect.Result{}, "no Default: line"},
		{"garbage", rules(port(22, "")), "deny", "allow", ufwOut("ERROR: something\n"), detect.Result{}, "Status: line"},
		{"policies differ", rules(port(22, "")), "deny", "allow", ufwOut(reject), detect.Drifted([]observation.Difference{
			diff(FieldFirewallIncoming, "reject", "deny"), diff(FieldFirewallOutgoing, "deny", "allow")}), ""},
		{"policies declared match", rules(port(22, "")), "reject", "deny", ufwOut(reject), detect.Converged(), ""},
		// allow 80 isn't satisfied by 8080/tcp, nor 25/tcp by an allow
		// from one address, nor 23/tcp by a deny, nor 587/tcp by an
		// outbound allow, nor 8080/tcp by one on an interface, nor a
		// profile by a port rule on its ports, nor 22/udp by 22/tcp.
		{"rules that aren't the row ufw allow writes", rules(port(80, "tcp"), port(25, "tcp"), port(23, "tcp"), port(587, "tcp"), port(8080, "tcp"), profile("SSH"), port(22, "udp"), port(53, "tcp")), "deny", "allow", ufwOut(active), detect.Drifted([]observation.Difference{
			diff("allow[0]", FirewallMissing, "80/tcp"),
			diff("allow[1]", FirewallMissing, "25/tcp"),
			diff("allow[2]", FirewallMissing, "23/tcp"),
			diff("allow[3]", FirewallMissing, "587/tcp"),
			diff("allow[4]", FirewallMissing, "8080/tcp"),
			diff("allow[5]", FirewallMissing, "SSH"),
			diff("allow[6]", FirewallMissing, "22/udp"),
			diff("allow[7]", FirewallMissing, "53/tcp"),
		}), ""},
		// The v6 rows are IPv6's: the IPv4 row must be there.
		{"only the v6 row", rules(port(22, "tcp"), profile("OpenSSH")), "deny", "allow", ufwOut(dropLines(active, "22/tcp                     ALLOW IN    Anywhere", "22/tcp (OpenSSH)  ")), detect.Drifted([]observation.Difference{
			diff("allow[0]", FirewallMissing, "22/tcp"), diff("allow[1]", FirewallMissing, "OpenSSH")}), ""},
		{"the bare profile name", rules(profile("OpenSSH"), profile("Nginx Full")), "deny", "allow", ufwOut("Status: active\nDefault: deny (incoming), allow (outgoing), disabled (routed)\n\nTo                         Action      From\n--                         ------      ----\nOpenSSH                    ALLOW IN    Anywhere\nNginx Full                 ALLOW IN    Anywhere\n"), detect.Converged(), ""},
		{"active with no rules", rules(profile("OpenSSH")), "deny", "allow", ufwOut("Status: active\nLogging: on (low)\nDefault: deny (incoming), allow (outgoing), disabled (routed)\nNew profiles: skip\n"), detect.Drifted([]observation.Difference{diff("allow[0]", FirewallMissing, "OpenSSH")}), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			u := &Ufw{Allow: c.allow, Incoming: c.in, Outgoing: c.out}
			got := u.Verdict([]detect.Answer{c.answer})
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

// dropLines removes the lines of text that begin with any of prefixes.
func dropLines(text string, prefixes ...string) string {
	var out []string
	for line := range strings.SplitSeq(text, "\n") {
		drop := false
		for _, p := range prefixes {
			drop = drop || strings.HasPrefix(line, p)
		}
		if !drop {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

// TestParseUfwStatus: the recorded table parses row by row: the (v6) mark
// and a comment are taken out, an interface stays in To.
func TestParseUfwStatus(t *testing.T) {
	st, err := ParseUfwStatus(ufwRecorded(t, "active-verbose.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !st.Active || st.Incoming != "deny" || st.Outgoing != "allow" {
		t.Errorf("status %+v", st)
	}
	want := []UfwRow{
		{To: "22/tcp (OpenSSH)", Action: "ALLOW IN", From: "Anywhere"},
		{To: "22/tcp", Action: "ALLOW IN", From: "Anywhere"},
		{To: "53", Action: "ALLOW IN", From: "Anywhere"},
		{To: "123/udp", Action: "ALLOW IN", From: "Anywhere"},
		{To: "80,443/tcp (Nginx Full)", Action: "ALLOW IN", From: "Anywhere"},
		{To: "25/tcp", Action: "ALLOW IN", From: "10.0.0.1"},
		{To: "23/tcp", Action: "DENY IN", From: "Anywhere"},
		{To: "8080/tcp on lo", Action: "ALLOW IN", From: "Anywhere"},
		{To: "9000/tcp", Action: "ALLOW IN", From: "Anywhere"},
		{To: "22/tcp (OpenSSH)", Action: "ALLOW IN", From: "Anywhere", V6: true},
		{To: "22/tcp", Action: "ALLOW IN", From: "Anywhere", V6: true},
		{To: "53", Action: "ALLOW IN", From: "Anywhere", V6: true},
		{To: "123/udp", Action: "ALLOW IN", From: "Anywhere", V6: true},
		{To: "80,443/tcp (Nginx Full)", Action: "ALLOW IN", From: "Anywhere", V6: true},
		{To: "23/tcp", Action: "DENY IN", From: "Anywhere", V6: true},
		{To: "8080/tcp on lo", Action: "ALLOW IN", From: "Anywhere", V6: true},
		{To: "9000/tcp", Action: "ALLOW IN", From: "Anywhere", V6: true},
		{To: "587/tcp", Action: "ALLOW OUT", From: "Anywhere"},
		{To: "587/tcp", Action: "ALLOW OUT", From: "Anywhere", V6: true},
	}
	if !reflect.DeepEqual(st.Rows, want) {
		t.Errorf("rows:\n got %+v\nwant %+v", st.Rows, want)
	}
	plain, err := ParseUfwStatus(ufwRecorded(t, "plain.txt"))
	if err != nil || plain.Incoming != "" || len(plain.Rows) != len(want) || plain.Rows[0].Action != "ALLOW" {
		t.Errorf("plain status: %+v, %v", plain, err)
	}
	for _, bad := range []string{
		"", "Status: maybe\n", "Status: active\nDefault: deny\n",
		"Status: active\nTo Action From\n",
		"Status: active\nTo Action From\n-- ------ ----\n22/tcp WHATEVER Anywhere\n",
	} {
		if _, err := ParseUfwStatus(bad); err == nil {
			t.Errorf("ParseUfwStatus(%q) took it", bad)
		}
	}
}

// FuzzUfwStatus: the parser never panics; a status it takes has a
// (v6)-free To and From in every IPv6 row, and a row ufw would print for
// any profile name (bare or verbose, v4) satisfies that profile.
func FuzzUfwStatus(f *testing.F) {
	for _, name := range []string{"active-verbose.txt", "reject-verbose.txt", "plain.txt", "inactive.txt"} {
		f.Add(ufwRecorded(f, name), "OpenSSH")
	}
	f.Add("Status: active\nDefault: deny (incoming), allow (outgoing)\nTo Action From\n-- -- --\nA ALLOW IN Anywhere (v6)\n", "Nginx Full")
	f.Fuzz(func(t *testing.T, out, name string) {
		st, err := ParseUfwStatus(out)
		if err == nil {
			for _, r := range st.Rows {
				if r.To == "" || r.From == "" || r.Action == "" {
					t.Fatalf("a row with an empty column: %+v", r)
				}
			}
		}
		if name == "" || strings.ContainsAny(name, "\n\r") || strings.HasPrefix(name, "-") || name != strings.TrimSpace(name) || strings.Contains(name, "  ") || strings.Contains(name, " (v6)") || strings.Contains(name, " #") {
			return
		}
		for _, act := range ufwActions {
			if strings.Contains(" "+name+" ", " "+act) {
				return
			}
		}
		for _, to := range []string{name, "22/tcp (" + name + ")"} {
			table := "Status: active\nDefault: deny (incoming), allow (outgoing), disabled (routed)\n\nTo                         Action      From\n--                         ------      ----\n" +
				to + strings.Repeat(" ", max(1, 27-len(to))) + "ALLOW IN    Anywhere                  \n"
			st, err := ParseUfwStatus(table)
			if err != nil {
				t.Fatalf("a row for %q: %v", name, err)
			}
			if !st.Allows(profile(name)) {
				t.Fatalf("the row %q doesn't satisfy the profile %q: %+v", to, name, st.Rows)
			}
		}
	})
}

func diff(field, observed, desired string) observation.Difference {
	return observation.Difference{Field: field, Observed: observed, Desired: desired}
}
