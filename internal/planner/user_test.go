package planner

import (
	"reflect"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

func userRes(id string, u declaration.User, deps ...string) declaration.Resource {
	return declaration.Resource{Common: declaration.Common{ID: id, Type: declaration.KindUser, DependsOn: deps}, Body: &u}
}

// opsOf is each step's name and arguments, as one line.
func opsOf(t *testing.T, c plan.Change) []string {
	t.Helper()
	var out []string
	for _, s := range c.Steps {
		if s.Type != plan.StepOp || s.Op == nil {
			t.Fatalf("%s: a step that isn't an operation: %+v", c.ID, s)
		}
		if s.Op.Privilege != plan.Root || s.Op.Timeout <= 0 || !s.Op.Path.IsZero() {
			t.Errorf("%s: %s runs as %s, limit %d, path %q: want root, a limit and no path", c.ID, s.Op.Name, s.Op.Privilege, s.Op.Timeout, s.Op.Path.String())
		}
		out = append(out, strings.Join(append([]string{string(s.Op.Name)}, s.Op.Args...), " | "))
	}
	return out
}

func TestUserSteps(t *testing.T) {
	cases := []struct {
		name string
		u    declaration.User
		want []string
	}{
		{"the account alone", declaration.User{Username: "deploy"}, []string{"user-account | deploy"}},
		{"every attribute, in order", declaration.User{
			Username: "deploy", Shell: "/bin/bash", HomeMode: "711",
			SSHKeys: &declaration.SSHKeys{Keys: []string{"ssh-ed25519 AAAA ops", "ssh-ed25519 BBBB ci"}},
			Sudo:    &declaration.Sudo{Mode: "nopasswd", Commands: []string{"/usr/bin/systemctl restart nginx"}},
			Groups:  []string{"docker", "adm"},
		}, []string{
			"user-account | deploy | /bin/bash",
			"user-home | deploy | 711",
			"user-groups | deploy | docker | adm",
			"user-keys | deploy | keys | ssh-ed25519 AAAA ops | ssh-ed25519 BBBB ci",
			"user-sudo | deploy | nopasswd | /usr/bin/systemctl restart nginx",
		}},
		{"copy_from, a grant of every command", declaration.User{
			Username: "ci", SSHKeys: &declaration.SSHKeys{CopyFrom: "ops"}, Sudo: &declaration.Sudo{Mode: "password"},
		}, []string{"user-account | ci", "user-keys | ci | copy_from | ops", "user-sudo | ci | password"}},
		{"sudo false removes", declaration.User{Username: "ci", Sudo: &declaration.Sudo{Remove: true}},
			[]string{"user-account | ci", "user-sudo | ci | remove"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, e := range []entry{absent(userRes("u", c.u)), drifted(userRes("u", c.u), observation.Difference{Field: "shell", Observed: "/bin/sh", Desired: "/bin/bash"})} {
				p := mustPlan(t, observe(e))
				if len(p.Changes) != 1 {
					t.Fatalf("%d changes", len(p.Changes))
				}
				if got := opsOf(t, p.Changes[0]); !reflect.DeepEqual(got, c.want) {
					t.Errorf("%s: steps\n%q\nwant\n%q", e.v.Verdict, got, c.want)
				}
				// Every operation has a script plan_hash covers.
				if _, err := plan.Hash(p, ops.Script); err != nil {
					t.Errorf("hash: %v", err)
				}
				for _, s := range p.Changes[0].Steps {
					if _, ok := ops.Script(s.Op.Name); !ok {
						t.Errorf("no script for %s", s.Op.Name)
					}
				}
			}
		})
	}
}

// A converged user has no change; a held one is held, and so is what waits
// on it.
func TestUserConvergedAndHeld(t *testing.T) {
	u := userRes("u", declaration.User{Username: "deploy", HomeMode: "711"})
	p := mustPlan(t, observe(converged(u)))
	if len(p.Changes) != 0 {
		t.Errorf("a converged user plans %v", changeIDs(p))
	}
	reason := "/home/deploy is a symbolic link: zap acts through no link it didn't make"
	p = mustPlan(t, observe(undetermined(u, reason), absent(fileRes("f", "/etc/x", "x", "u"))))
	if len(p.Changes) != 0 || len(p.Held) != 2 || p.Held[0].Reason != reason || !reflect.DeepEqual(p.Held[1].WaitsOn, []string{"u"}) {
		t.Errorf("held user: changes %v, held %+v", changeIDs(p), p.Held)
	}
}

// The plan's resource shares no slice with the observations it came from.
func TestUserClone(t *testing.T) {
	u := userRes("u", declaration.User{Username: "deploy", Groups: []string{"a"},
		SSHKeys: &declaration.SSHKeys{Keys: []string{"k"}}, Sudo: &declaration.Sudo{Mode: "nopasswd", Commands: []string{"c"}}})
	o := observe(absent(u))
	p := mustPlan(t, o)
	in := declaration.BodyOf[*declaration.User](&o.Declaration.Resources[0])
	in.Groups[0], in.SSHKeys.Keys[0], in.Sudo.Commands[0] = "x", "x", "x"
	got := declaration.BodyOf[*declaration.User](&p.Changes[0].Resource)
	if got.Groups[0] != "a" || got.SSHKeys.Keys[0] != "k" || got.Sudo.Commands[0] != "c" {
		t.Errorf("the plan shares the observations' slices: %+v", got)
	}
}
