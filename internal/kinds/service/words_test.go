package service

import (
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/internal/ops/opcmd"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// The service's scripts, as internal/kinds hands them to ops.
func init() { ops.Register(scripts) }

// TestFormsInScripts: every command the words say a service operation runs
// is in its script, word for word (line continuations joined), with a case
// for the manager, so the wording a plan shows can't drift from what runs;
// and every svc-* script has its wording.
func TestFormsInScripts(t *testing.T) {
	names, err := scripts.ReadDir("scripts")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range names {
		if name := plan.OpName(strings.TrimSuffix(e.Name(), ".sh")); !e.IsDir() && forms[name] == nil {
			t.Errorf("%s: a service operation with no words", name)
		}
	}
	for name, byManager := range forms {
		s, ok := ops.Script(name)
		if !ok {
			t.Errorf("%s: no such operation script", name)
			continue
		}
		text := opcmd.Normalize(s.Text)
		for manager, cmds := range byManager {
			for _, c := range cmds {
				if !strings.Contains(text, c) {
					t.Errorf("%s (%s): the script doesn't run %s", name, manager, c)
				}
			}
			if !strings.Contains(text, "\n"+manager+")") {
				t.Errorf("%s: the script has no case for %s", name, manager)
			}
		}
	}
}

// TestWords: each service operation reads as the commands it runs for its
// manager, the service one shell word; as root each under its sudo, else
// as the account the caller names; wrong arguments, a manager with no
// commands for it and a path have no words.
func TestWords(t *testing.T) {
	for _, c := range []struct {
		name plan.OpName
		args []string
		want string
	}{
		{OpEnable, []string{"systemd", "chrony"}, "systemctl enable -- chrony"},
		{OpEnable, []string{"openrc", "httpd"}, "rc-update add httpd default"},
		{OpDisable, []string{"systemd", "chrony"}, "systemctl disable -- chrony"},
		{OpDisable, []string{"openrc", "httpd"}, "rc-update del httpd RUNLEVEL, for each RUNLEVEL that holds it"},
		{OpStart, []string{"systemd", "chrony"}, "systemctl start -- chrony"},
		{OpStart, []string{"openrc", "httpd"}, "rc-service httpd start"},
		{OpStop, []string{"openrc", "httpd"}, "rc-service httpd stop"},
		{OpRestart, []string{"systemd", "nginx"}, "systemctl daemon-reload; systemctl try-restart -- nginx"},
		{OpReload, []string{"systemd", "nginx"}, "systemctl daemon-reload; systemctl try-reload-or-restart -- nginx"},
		{OpReload, []string{"openrc", "httpd"}, "rc-service --ifstarted httpd reload"},
		{OpZap, []string{"openrc", "httpd"}, "rc-service httpd zap"},
		{OpStart, []string{"systemd", "it's"}, `systemctl start -- 'it'\''s'`},
	} {
		got, ok := words(&plan.Op{Name: c.name, Args: c.args, Privilege: plan.Elevated})
		if !ok || got != (opcmd.Words{Text: c.want, As: true}) {
			t.Errorf("words(%s %q) = %+v, %v; want %q as the account", c.name, c.args, got, ok, c.want)
		}
	}
	for _, c := range []struct {
		name plan.OpName
		args []string
		want string
	}{
		{OpReload, []string{"systemd", "nginx"}, "sudo systemctl daemon-reload; sudo systemctl try-reload-or-restart -- nginx"},
		{OpDisable, []string{"openrc", "httpd"}, "sudo rc-update del httpd RUNLEVEL, for each RUNLEVEL that holds it"},
	} {
		got, ok := words(&plan.Op{Name: c.name, Args: c.args, Privilege: plan.Root})
		if !ok || got != (opcmd.Words{Text: c.want}) {
			t.Errorf("words(%s %q) as root = %+v, %v; want %q", c.name, c.args, got, ok, c.want)
		}
	}
	withPath := &plan.Op{Name: OpStart, Args: []string{"systemd", "chrony"}, Privilege: plan.Root, Path: declaration.Lit("/etc/chrony")}
	for _, op := range []*plan.Op{
		{Name: OpStart, Args: []string{"systemd"}, Privilege: plan.Root},
		{Name: OpZap, Args: []string{"systemd", "chrony"}, Privilege: plan.Root},
		{Name: OpStart, Args: []string{"runit", "x"}, Privilege: plan.Root},
		{Name: "ledger-clear", Args: []string{"systemd", "x"}, Privilege: plan.Root},
		withPath,
	} {
		if got, ok := words(op); ok {
			t.Errorf("words(%s %q) = %+v, want none", op.Name, op.Args, got)
		}
	}
}
