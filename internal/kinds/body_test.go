package kinds

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/kinds/aptrepo"
	"github.com/zap-go/zap/internal/kinds/firewall"
	"github.com/zap-go/zap/internal/kinds/user"
	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/pkg/plan"
)

// scriptPart is the part of an operation's script from the line from to
// the line before the one starting with to, each its own line, so a test
// runs what the script prints with none of what it writes.
func scriptPart(t *testing.T, script, from, to string) string {
	t.Helper()
	s, ok := ops.Script(plan.OpName(strings.TrimSuffix(script, ".sh")))
	if !ok {
		t.Fatalf("no script %s", script)
	}
	var out []string
	in := false
	for _, l := range strings.Split(s.Text, "\n") {
		switch {
		case l == from:
			in = true
		case in && strings.HasPrefix(l, to):
			return strings.Join(out, "\n") + "\n"
		}
		if in {
			out = append(out, l)
		}
	}
	t.Fatalf("%s: no lines from %q to %q", script, from, to)
	return ""
}

// printed is what sh prints running part with args as its arguments.
func printed(t *testing.T, part string, args []string) string {
	t.Helper()
	cmd := exec.Command("sh", append([]string{"-euc", part, "sh"}, args...)...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sh: %v\n%s", err, part)
	}
	return string(out)
}

// TestBodiesAreWhatTheScriptsWrite: the text a plan shows under a
// user-sudo or firewall-nft-apply step is, byte for byte, what the
// script's own printf lines make of the same arguments.
func TestBodiesAreWhatTheScriptsWrite(t *testing.T) {
	sudo := scriptPart(t, "user-sudo.sh", "nopasswd) tag='NOPASSWD: ' ;;", "*)")
	sudo = "case $mode in\n" + sudo + "esac\n" + scriptPart(t, "user-sudo.sh", "cmds=", "umask")
	sudo += strings.TrimSuffix(scriptPart(t, "user-sudo.sh", `printf '# zap: the sudo grant of %s\n%s ALL=(ALL:ALL) %s%s\n' "$n" "$n" "$tag" "$cmds" >/proc/self/fd/3`, "chown"), " >/proc/self/fd/3\n")
	sudo = "n=$1 mode=$2; shift 2\n" + sudo + "\n"
	nft := scriptPart(t, "firewall-nft-apply.sh", "policy() {", "dir=/etc")
	nft += "in=$1 out=$2; shift 2\n" + scriptPart(t, "firewall-nft-apply.sh", "{", "} >/proc/self/fd/3") + "}\n"
	for _, c := range []struct {
		op   plan.OpName
		part string
		args []string
	}{
		{user.OpSudo, sudo, []string{"deploy", "nopasswd"}},
		{user.OpSudo, sudo, []string{"deploy", "password", "/usr/bin/id -u", "/usr/bin/systemctl restart app"}},
		{firewall.OpNftApply, nft, []string{"deny", "allow", "22/tcp", "8081/tcp", "5353"}},
		{firewall.OpNftApply, nft, []string{"reject", "reject", "53/udp"}},
		{firewall.OpNftApply, nft, []string{"allow", "deny"}},
	} {
		b, ok := BodyOf(&plan.Op{Name: c.op, Args: c.args})
		if !ok || b.Field != "text" || b.Args != 0 {
			t.Fatalf("%s %q: body %+v, %v", c.op, c.args, b, ok)
		}
		if want := printed(t, c.part, c.args); b.Text != want {
			t.Errorf("%s %q:\n got %q\nwant %q", c.op, c.args, b.Text, want)
		}
	}
	for _, args := range [][]string{{"deploy", "remove"}, {"deploy"}} {
		if b, ok := BodyOf(&plan.Op{Name: user.OpSudo, Args: args}); ok {
			t.Errorf("user-sudo %q writes no file, and shows %+v", args, b)
		}
	}
	if b, ok := BodyOf(&plan.Op{Name: aptrepo.OpList, Args: []string{"deb x y"}}); !ok || b != (Body{Field: "line", Text: "deb x y", Args: 1}) {
		t.Errorf("apt-list: %+v, %v", b, ok)
	}
}
