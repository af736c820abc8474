package sshhost

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// sshG prints c as `ssh -G` prints the settings parseConfig reads.
func sshG(c *Config) string {
	var b strings.Builder
	if c.HostName != c.Host {
		// Else ssh -G's hostname is the host as given, which is what
		// parseConfig takes when it prints none.
		fmt.Fprintf(&b, "hostname %s\n", c.HostName)
	}
	fmt.Fprintf(&b, "port %d\n", c.Port)
	if c.User != "" {
		fmt.Fprintf(&b, "user %s\n", c.User)
	}
	for _, f := range c.IdentityFiles {
		fmt.Fprintf(&b, "identityfile %s\n", f)
	}
	if len(c.KnownHosts) > 0 {
		fmt.Fprintf(&b, "userknownhostsfile %s\n", strings.Join(c.KnownHosts, " "))
	}
	if len(c.Global) > 0 {
		fmt.Fprintf(&b, "globalknownhostsfile %s\n", strings.Join(c.Global, " "))
	}
	hash := map[bool]string{true: "yes", false: "no"}[c.HashKnownHosts]
	fmt.Fprintf(&b, "hashknownhosts %s\nhostkeyalias %s\nconnecttimeout %d\n", hash, c.HostKeyAlias, c.ConnectTimeout)
	for key, v := range map[string]string{"proxyjump": c.ProxyJump, "proxycommand": c.ProxyCommand} {
		if v == "" {
			v = "none"
		}
		fmt.Fprintf(&b, "%s %s\n", key, v)
	}
	return b.String()
}

// FuzzParseSSHConfigRoundTrip reads any `ssh -G` output: what parseConfig
// takes has a port from 1 to 65535, a host name, and every ~/ path
// expanded; printed back as ssh -G prints it, it parses to the same
// settings (for output with no CR, which the line reader drops at a
// line's end).
func FuzzParseSSHConfigRoundTrip(f *testing.F) {
	f.Add("web", "user bob\nhostname 10.0.0.5\nport 2222\nhashknownhosts yes\nidentityfile ~/.ssh/id_ed25519\nidentityfile /keys/deploy\n"+
		"userknownhostsfile ~/.ssh/known_hosts ~/.ssh/known_hosts2\nglobalknownhostsfile /etc/ssh/ssh_known_hosts\nproxyjump jump@bastion:2200\nconnecttimeout 7\nlocalcommand touch /tmp/x\n")
	f.Add("web", "userknownhostsfile /dev/null /dev/null\nproxycommand nc %h %p\nproxyjump none\n")
	f.Add("db", "HostName db.internal\nPort 022\nIdentityFile ~\nIdentityFile ~/../x\nUserKnownHostsFile\t~/a  ~/b\nConnectTimeout -3\n")
	f.Add("x", "port 0\n")
	f.Add("x", "port 65536\nhostname\n")
	f.Add("", "hostname  two words \nuser\n")
	f.Add("0\n", "")
	f.Fuzz(func(t *testing.T, host, out string) {
		c, err := parseConfig(host, []byte(out), "/home/op")
		if err != nil {
			return
		}
		if c.Port < 1 || c.Port > 65535 || c.HostName == "" && host != "" || c.Host != host {
			t.Fatalf("parseConfig(%q, %q) = %+v", host, out, c)
		}
		for _, p := range append(append(append([]string{}, c.IdentityFiles...), c.KnownHosts...), c.Global...) {
			if p == "~" || strings.HasPrefix(p, "~/") {
				t.Fatalf("%q is left unexpanded in %+v", p, c)
			}
		}
		if strings.Contains(out, "\r") {
			return
		}
		printed := sshG(c)
		again, err := parseConfig(host, []byte(printed), "/home/op")
		if err != nil || !reflect.DeepEqual(again, c) {
			t.Fatalf("%+v, printed\n%s, parses as %+v (%v)", c, printed, again, err)
		}
	})
}
