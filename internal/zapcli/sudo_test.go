package zapcli

import (
	"testing"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/pkg/declaration"
)

// needsRoot decides from the paths and owners declared, not the kinds: the
// operator's own files never need root, to read or to change.
func TestNeedsRoot(t *testing.T) {
	alice := operator{
		home:    "/home/alice",
		isUser:  func(n string) bool { return n == "alice" },
		inGroup: func(n string) bool { return n == "alice" || n == "staff" },
	}
	env := detect.Env{
		Home:  alice.home,
		Value: func(n string) string { return map[string]string{"APP": "/home/alice/app", "ETC": "/etc"}[n] },
	}
	for _, c := range []struct {
		name           string
		resources      string
		reads, changes bool
	}{
		{"a file of the operator's", `{"id":"f","type":"file","path":"~/a/b.conf","content":{"type":"inline","content":"x"}}`, false, false},
		{"its mode, owner and group the operator's", `{"id":"f","type":"file","path":"$HOME/b","mode":"600","owner":"alice","group":"staff","content":{"type":"inline","content":"x"}}`, false, false},
		{"a referenced path in the home", `{"id":"f","type":"file","path":{"$text":[{"$env":"APP"},"/x"]},"content":{"type":"inline","content":"x"}}`, false, false},
		{"a directory and a link of the operator's", `{"id":"d","type":"directory","path":"~/d","mode":"700"},{"id":"l","type":"link","path":"~/l","target":"/usr/bin/env"}`, false, false},
		{"a script, a verify", `{"id":"s","type":"script","check":"test -e /etc/x","run":"touch ~/x"},{"id":"v","type":"verify","assertions":[{"type":"path_exists","path":"/etc/hosts"}]}`, false, false},
		{"an installer checking the home", `{"id":"i","type":"installer","url":"https://x.example/i.sh","check":"~/.cargo/bin/cargo"}`, false, false},

		{"another owner", `{"id":"f","type":"file","path":"~/b","owner":"root","content":{"type":"inline","content":"x"}}`, false, true},
		{"another group", `{"id":"d","type":"directory","path":"~/d","group":"wheel"}`, false, true},
		{"a file in /etc", `{"id":"f","type":"file","path":"/etc/b","content":{"type":"inline","content":"x"}}`, true, true},
		{"a referenced path outside", `{"id":"f","type":"file","path":{"$text":[{"$env":"ETC"},"/x"]},"content":{"type":"inline","content":"x"}}`, true, true},
		{"the home's neighbour", `{"id":"f","type":"file","path":"/home/alice2/b","content":{"type":"inline","content":"x"}}`, true, true},
		{"a source outside", `{"id":"f","type":"file","path":"~/b","content":{"type":"source","path":"/etc/hosts"}}`, true, true},
		{"a directory outside", `{"id":"d","type":"directory","path":"/srv/d"}`, false, true},
		{"a directory outside with a mode", `{"id":"d","type":"directory","path":"/srv/d","mode":"755"}`, true, true},
		{"a link outside", `{"id":"l","type":"link","path":"/usr/local/bin/x","target":"~/bin/x"}`, false, true},
		{"an installer checking outside", `{"id":"i","type":"installer","url":"https://x.example/i.sh","check":"/usr/local/bin/x"}`, true, true},
		{"a package", `{"id":"p","type":"package","from":{"apt":"curl"}}`, false, true},
		{"a service", `{"id":"s","type":"service","service":"nginx","running":true}`, false, true},
		{"a trigger", `{"id":"f","type":"file","path":"~/b","content":{"type":"inline","content":"x"}},{"id":"s","type":"service","service":"nginx","restart_on":["f"]}`, true, true},
		{"a user", `{"id":"u","type":"user","username":"deploy"}`, false, true},
		{"a user's keys", `{"id":"u","type":"user","username":"deploy","ssh_keys":{"keys":["ssh-ed25519 AAAA"]}}`, true, true},
		{"a swap", `{"id":"w","type":"swap","size":"512M"}`, false, true},
		{"a firewall", `{"id":"fw","type":"firewall","backend":"ufw","allow":[{"port":22}]}`, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc := `{"format":"zap.declaration/1","target":{"local":true,"package_manager":"apt","service_manager":"systemd"},"resources":[` + c.resources + `]}`
			d, err := declaration.Read([]byte(mustCanon(t, doc)))
			if err != nil {
				t.Fatal(err)
			}
			if got := needsRoot(d, env, alice, false); got != c.reads {
				t.Errorf("reads: needsRoot = %v, want %v", got, c.reads)
			}
			if got := needsRoot(d, env, alice, true); got != c.changes {
				t.Errorf("a wetrun: needsRoot = %v, want %v", got, c.changes)
			}
		})
	}
}
