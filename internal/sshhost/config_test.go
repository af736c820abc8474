package sshhost

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseConfig(t *testing.T) {
	out := `user bob
hostname 10.0.0.5
port 2222
hashknownhosts yes
identityfile ~/.ssh/id_ed25519
identityfile /keys/deploy
userknownhostsfile ~/.ssh/known_hosts ~/.ssh/known_hosts2
globalknownhostsfile /etc/ssh/ssh_known_hosts
proxyjump jump@bastion:2200
connecttimeout 7
localcommand touch /tmp/x
stricthostkeychecking true
`
	c, err := parseConfig("web", []byte(out), "/home/op")
	if err != nil {
		t.Fatal(err)
	}
	want := &Config{
		Host: "web", HostName: "10.0.0.5", User: "bob", Port: 2222,
		IdentityFiles:  []string{"/home/op/.ssh/id_ed25519", "/keys/deploy"},
		KnownHosts:     []string{"/home/op/.ssh/known_hosts", "/home/op/.ssh/known_hosts2"},
		Global:         []string{"/etc/ssh/ssh_known_hosts"},
		HashKnownHosts: true, ProxyJump: "jump@bastion:2200", ConnectTimeout: 7,
		StrictHostKeyChecking: "yes", Home: "/home/op",
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("got %+v\nwant %+v", c, want)
	}
	if !c.Recorded() {
		t.Error("a config with a known_hosts file records keys")
	}
	c, err = parseConfig("web", []byte("userknownhostsfile /dev/null /dev/null\nproxycommand nc %h %p\n"), "/h")
	if err != nil {
		t.Fatal(err)
	}
	if c.Recorded() || c.ProxyCommand == "" || c.HostName != "web" || c.Port != 22 {
		t.Errorf("got %+v", c)
	}
	if _, err := parseConfig("web", []byte("port x\n"), "/h"); err == nil || !strings.Contains(err.Error(), "port") {
		t.Errorf("a port that isn't one: %v", err)
	}
}

func TestAskCountsOnlyWhenAConfigFileWritesIt(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	none := write("none", "Host x\n  Port 2\n#   StrictHostKeyChecking ask\n")
	other := write("other", "Host x\n  StrictHostKeyChecking yes\n")
	ask := write("ask", "Host x\n  stricthostkeychecking = \"ASK\"\n")
	stderr := "OpenSSH_9.2p1\ndebug1: Reading configuration data " + none + "\ndebug1: Reading configuration data " + other + "\n"
	if files := configFiles(stderr); !reflect.DeepEqual(files, []string{none, other}) {
		t.Fatalf("configFiles: got %q", files)
	}
	if explicitAsk([]string{none, other, "/nonexistent"}) {
		t.Error("a commented ask, or another value, counts as an ask set")
	}
	if !explicitAsk([]string{none, ask}) {
		t.Error("an ask written key = value, in another case, doesn't count")
	}
	if got := withoutDebug(stderr + "/x line 1: Bad configuration option\n"); got != "/x line 1: Bad configuration option\n" {
		t.Errorf("withoutDebug: got %q", got)
	}
}
