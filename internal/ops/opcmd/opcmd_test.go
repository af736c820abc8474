package opcmd_test

import (
	"os"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/internal/ops/opcmd"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// TestFormsInScripts: every command the table says an operation runs is in
// that operation's script, word for word (line continuations joined), so
// the wording a plan shows can't drift from what runs; and every package
// operation's script has its wording (a service's: internal/kinds/service).
func TestFormsInScripts(t *testing.T) {
	for name, cmds := range opcmd.Forms {
		s, ok := ops.Script(plan.OpName(name))
		if !ok {
			t.Errorf("%s: no such operation script", name)
			continue
		}
		text := opcmd.Normalize(s.Text)
		for _, c := range cmds {
			if !strings.Contains(text, c) {
				t.Errorf("%s: the script doesn't run %s", name, c)
			}
		}
	}
	entries, err := os.ReadDir("../scripts")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".sh")
		if strings.HasPrefix(name, "pkg-") {
			if _, ok := opcmd.Forms[name]; !ok {
				t.Errorf("%s: a package operation with no wording in opcmd.Forms", name)
			}
		}
	}
}

// TestDescribe: each operation reads as the commands it runs with its
// arguments; wrong arguments and other operations aren't described.
func TestDescribe(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"pkg-update-apt", nil, "apt-get update -q -o DPkg::Lock::Timeout=120"},
		{"pkg-install-apt", []string{"ripgrep", "libc6:amd64", "nginx=1.22*"}, "apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=120 -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold -- ripgrep libc6:amd64 'nginx=1.22*'"},
		{"pkg-update-apk", nil, "apk update"},
		{"pkg-install-apk", []string{"curl", "so:libc.so.6"}, "apk add -- curl so:libc.so.6"},
	} {
		got, ok := opcmd.Describe(c.name, c.args)
		if !ok || got != c.want {
			t.Errorf("Describe(%s %q) = %q, %v; want %q", c.name, c.args, got, ok, c.want)
		}
	}
	// Under sudo, each command carries its own.
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"pkg-update-apt", nil, "sudo apt-get update -q -o DPkg::Lock::Timeout=120"},
	} {
		got, ok := opcmd.DescribeSudo(c.name, c.args)
		if !ok || got != c.want {
			t.Errorf("DescribeSudo(%s %q) = %q, %v; want %q", c.name, c.args, got, ok, c.want)
		}
	}
	if got, ok := opcmd.DescribeSudo("user-account", []string{"alice"}); ok {
		t.Errorf("DescribeSudo(user-account) = %q, want none", got)
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"pkg-update-apt", []string{"x"}},
		{"pkg-install-apt", nil},
		{"user-account", []string{"alice"}},
		{"put", nil},
	} {
		if got, ok := opcmd.Describe(c.name, c.args); ok {
			t.Errorf("Describe(%s %q) = %q, want none", c.name, c.args, got)
		}
	}
}

// TestWord: an operation with words of its own says whether the caller
// adds the account (not when its commands carry their sudo or the words
// name who runs it) and whether they are a verify's assertion; a package
// or service operation with a path, and an operation of no wording, have
// none.
func TestWord(t *testing.T) {
	op := func(name string, p plan.Privilege, args ...string) *plan.Op {
		return &plan.Op{Name: plan.OpName(name), Args: args, Privilege: p}
	}
	for _, c := range []struct {
		op   *plan.Op
		want opcmd.Words
	}{
		{op("svc-start", plan.Root, "systemd", "chrony"), opcmd.Words{Text: "sudo systemctl start -- chrony"}},
		{op("svc-start", plan.Elevated, "systemd", "chrony"), opcmd.Words{Text: "systemctl start -- chrony", As: true}},
		{op("installer", plan.Login, "https://sh.rustup.rs", "sh"), opcmd.Words{Text: "run the script fetched from https://sh.rustup.rs (piped to sh)"}},
		{op("user-keys", plan.Root, "ann", "keys", "ssh-ed25519 AAAA ann"), opcmd.Words{Text: "user-keys ann keys ssh-ed25519 AAAA ann", As: true}},
		{op("pg-hba", plan.Root, "app", "app", "127.0.0.1/32", "md5"), opcmd.Words{Text: "pg_hba rule: host app app 127.0.0.1/32 md5 (as postgres)"}},
		{op("verify-path", plan.Login, "/srv/x", "", "", "", ""), opcmd.Words{Text: "path_exists /srv/x", Assertion: true}},
		{op("firewall-ufw-allow", plan.Root, "OpenSSH"), opcmd.Words{Text: "sudo ufw allow OpenSSH"}},
		{op("firewall-ufw-allow", plan.Root, "Nginx Full"), opcmd.Words{Text: "sudo ufw allow 'Nginx Full'"}},
		{op("firewall-ufw-allow", plan.Root, "53/udp"), opcmd.Words{Text: "sudo ufw allow 53/udp"}},
		{op("firewall-ufw-default", plan.Root, "incoming", "deny"), opcmd.Words{Text: "sudo ufw default deny incoming"}},
		{op("firewall-ufw-default", plan.Login, "incoming", "deny"), opcmd.Words{Text: "ufw default deny incoming", As: true}},
		{op("firewall-ufw-enable", plan.Root), opcmd.Words{Text: "sudo ufw --force enable"}},
	} {
		if got, ok := opcmd.Word(c.op); !ok || got != c.want {
			t.Errorf("Word(%s %q) = %+v, %v; want %+v", c.op.Name, c.op.Args, got, ok, c.want)
		}
	}
	withPath := op("svc-start", plan.Root, "systemd", "chrony")
	withPath.Path = declaration.Lit("/etc/chrony")
	for _, o := range []*plan.Op{withPath, op("user-account", plan.Root, "ann"), op("installer", plan.Login, "x"),
		op("user-keys", plan.Root, "ann", "copy_from", "root"), op("pg-database", plan.Root, "app"), op("verify-path", plan.Login, "/srv/x"),
		op("firewall-ufw-default", plan.Root, "incoming"), op("firewall-ufw-enable", plan.Root, "x"), op("firewall-nft-apply", plan.Root, "drop", "accept")} {
		if got, ok := opcmd.Word(o); ok {
			t.Errorf("Word(%s %q) = %+v, want none", o.Name, o.Args, got)
		}
	}
}
