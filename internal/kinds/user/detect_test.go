package user

import (
	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/detect/detecttest"
	"strings"
	"testing"

	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

const (
	pwDeploy  = "passwd deploy:x:1001:1001::/home/deploy:/bin/bash\ngroups deploy docker\n"
	keyA      = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA ops"
	keyB      = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB ci"
	homeDir   = "home 41ed 1001\n" // a directory mode 755, deploy's
	homeRoot  = "home 41ed 0\n"    // a directory mode 755, root's
	home711   = "home 41c9 1001\n" // mode 711
	homeOther = "home 41ed 1002\n" // another uid's
	homeLink  = "home a1ff 1001\n" // a symbolic link
	homeFile  = "home 81a4 1001\n" // a regular file
	noAccount = "passwd -\n"       //
	rootKeys  = "shadow star\nsshdir 700 1001\nkeys file\n" + keyA + "\n"
)

func probeOut(out string) detect.Answer { return detect.Answer{Status: detect.StatusOK, Output: out} }

func probeExit(code int) detect.Answer { return detect.Answer{Status: detect.StatusOK, Exit: code} }

func userOf(spec declaration.User) *User {
	if spec.Username == "" {
		spec.Username = "deploy"
	}
	return &User{Spec: &spec}
}

// Queries: the login probe always; the root probe with ssh_keys; the
// source probe with copy_from; the sudoers digest with sudo.
func TestUserQueries(t *testing.T) {
	cases := []struct {
		spec declaration.User
		want []string
	}{
		{declaration.User{}, []string{"probe login"}},
		{declaration.User{HomeMode: "711", Groups: []string{"docker"}}, []string{"probe login"}},
		{declaration.User{SSHKeys: &declaration.SSHKeys{Keys: []string{keyA}}}, []string{"probe login", "probe root"}},
		{declaration.User{SSHKeys: &declaration.SSHKeys{CopyFrom: "ops"}}, []string{"probe login", "probe root", "probe root"}},
		{declaration.User{Sudo: &declaration.Sudo{Remove: true}}, []string{"probe login", "content elevated /etc/sudoers.d/deploy"}},
	}
	for _, c := range cases {
		var got []string
		for _, q := range userOf(c.spec).Queries() {
			s := string(q.Op) + " " + string(q.Lane)
			if q.Path != "" {
				s += " " + q.Path
			}
			got = append(got, s)
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%+v: queries %q, want %q", c.spec, got, c.want)
		}
	}
	// A user that declares neither home_mode nor ssh_keys isn't read for
	// its home.
	if q := userOf(declaration.User{}).Queries()[0]; !strings.Contains(q.Command.Text, "check_home=0") {
		t.Errorf("a user with no home_mode or ssh_keys reads its home:\n%s", q.Command.Text)
	}
	if q := userOf(declaration.User{HomeMode: "700"}).Queries()[0]; !strings.Contains(q.Command.Text, "check_home=1") {
		t.Errorf("a user with home_mode doesn't read its home:\n%s", q.Command.Text)
	}
	// The name is quoted into every probe.
	for _, q := range userOf(declaration.User{SSHKeys: &declaration.SSHKeys{CopyFrom: "ops"}}).Queries() {
		if !strings.Contains(q.Command.Text, "'deploy'") && !strings.Contains(q.Command.Text, "'ops'") {
			t.Errorf("a probe doesn't name the account quoted:\n%s", q.Command.Text)
		}
	}
}

func TestUserVerdictAccount(t *testing.T) {
	detecttest.Check(t, userOf(declaration.User{}), []detecttest.Case{
		{"no account is absent", []detect.Answer{probeOut(noAccount)}, detect.Absent()},
		{"an account with nothing declared is converged", []detect.Answer{probeOut(pwDeploy)}, detect.Converged()},
		{"a probe that fails holds", []detect.Answer{probeExit(3)}, detect.Holding("reading the account deploy failed (exit 3)")},
		{"a probe that timed out holds", []detect.Answer{{Status: detect.StatusTimedOut}}, detect.Holding("reading the account deploy timed out after 30s")},
		{"sudo that fails holds", []detect.Answer{{Status: detect.StatusSudoFailed}}, detect.Holding(detect.SudoFailed)},
		{"garbled output holds", []detect.Answer{probeOut("what\n")}, detect.Holding("reading the account deploy gave output that doesn't parse (no passwd line)")},
		{"a short passwd entry holds", []detect.Answer{probeOut("passwd deploy:x:1\ngroups x\n")}, detect.Holding("reading the account deploy gave output that doesn't parse (a passwd entry of 3 fields)")},
	})
	detecttest.Check(t, userOf(declaration.User{Shell: "/bin/zsh", Groups: []string{"docker", "postgres"}}), []detecttest.Case{
		{"shell and groups drift", []detect.Answer{probeOut(pwDeploy)}, detect.Drifted([]observation.Difference{
			diff("shell", "/bin/bash", "/bin/zsh"),
			diff("groups", "deploy docker", "also postgres"),
		})},
		{"as declared", []detect.Answer{probeOut("passwd deploy:x:1001:1001:Deploy,,,:/home/deploy:/bin/zsh\ngroups deploy postgres docker adm\n")}, detect.Converged()},
	})
}

// Every hold detection.md lists for the home, with home_mode or ssh_keys.
func TestUserVerdictHome(t *testing.T) {
	u := userOf(declaration.User{HomeMode: "711"})
	detecttest.Check(t, u, []detecttest.Case{
		{"the declared mode", []detect.Answer{probeOut(pwDeploy + home711)}, detect.Converged()},
		{"another mode drifts", []detect.Answer{probeOut(pwDeploy + homeDir)}, detect.Drifted([]observation.Difference{diff("home_mode", "755", "711")})},
		{"a root-owned home is as declared", []detect.Answer{probeOut(pwDeploy + "home 41c9 0\n")}, detect.Converged()},
		{"a home in /etc/passwd elsewhere holds, naming it", []detect.Answer{probeOut("passwd deploy:x:1001:1001::/srv/deploy:/bin/sh\ngroups deploy\n" + homeDir)},
			detect.Holding("deploy's home in /etc/passwd is /srv/deploy, not /home/deploy: zap manages a user's home as /home/<name>, so its `home_mode` and `ssh_keys` would miss the account's own")},
		{"no home in /etc/passwd holds", []detect.Answer{probeOut("passwd deploy:x:1001:1001:::/bin/sh\ngroups deploy\n" + homeDir)},
			detect.Holding("deploy's home in /etc/passwd is none, not /home/deploy: zap manages a user's home as /home/<name>, so its `home_mode` and `ssh_keys` would miss the account's own")},
		{"a link holds", []detect.Answer{probeOut(pwDeploy + homeLink)},
			detect.Holding("/home/deploy is a symbolic link: zap acts through no link it didn't make, so a home linked elsewhere declares neither `home_mode` nor `ssh_keys`")},
		{"a file holds", []detect.Answer{probeOut(pwDeploy + homeFile)},
			detect.Holding("/home/deploy is a regular file, not a directory: zap manages a user's home as the directory /home/deploy")},
		{"another uid's directory holds", []detect.Answer{probeOut(pwDeploy + homeOther)},
			detect.Holding("/home/deploy is owned by uid 1002 (deploy's uid is 1001); chown it to deploy, or remove it: zap manages a user's home as the directory /home/deploy, the user's own or root's")},
		{"another uid's directory holds an account not made yet", []detect.Answer{probeOut(noAccount + homeOther)},
			detect.Holding("/home/deploy is owned by uid 1002 (deploy has no account yet); chown it to deploy, or remove it: zap manages a user's home as the directory /home/deploy, the user's own or root's")},
		{"a link holds an account not made yet", []detect.Answer{probeOut(noAccount + homeLink)},
			detect.Holding("/home/deploy is a symbolic link: zap acts through no link it didn't make, so a home linked elsewhere declares neither `home_mode` nor `ssh_keys`")},
		{"nothing there for an account not made yet is absent", []detect.Answer{probeOut(noAccount + "home none\n")}, detect.Absent()},
		{"root's directory for an account not made yet is absent", []detect.Answer{probeOut(noAccount + homeRoot)}, detect.Absent()},
		{"no home for an existing account holds", []detect.Answer{probeOut(pwDeploy + "home none\n")},
			detect.Holding("/home/deploy doesn't exist, and the account deploy does: zap makes the home only when it creates the account; make the directory (owned by deploy), or declare neither `home_mode` nor `ssh_keys`")},
		{"a missing /home holds, naming /home", []detect.Answer{probeOut(noAccount + "home missing\n")}, detect.Holding("/home is missing: zap manages a user's home as /home/deploy")},
		{"an unsearchable /home holds, naming /home", []detect.Answer{probeOut(pwDeploy + "home unsearchable\n")},
			detect.Holding("/home can't be searched by the connecting user, so what is at /home/deploy can't be read")},
		{"no home line holds", []detect.Answer{probeOut(pwDeploy)}, detect.Holding("reading the account deploy gave output that doesn't parse (no home line)")},
		{"a garbled home line holds", []detect.Answer{probeOut(pwDeploy + "home x\n")}, detect.Holding("reading the account deploy gave output that doesn't parse (a home line that doesn't parse)")},
	})
	// Without home_mode or ssh_keys, what the home is doesn't matter.
	detecttest.Check(t, userOf(declaration.User{Shell: "/bin/bash"}), []detecttest.Case{
		{"a home elsewhere is not read", []detect.Answer{probeOut("passwd deploy:x:1001:1001::/srv/deploy:/bin/bash\ngroups deploy\n")}, detect.Converged()},
	})
}

func TestUserVerdictKeys(t *testing.T) {
	u := userOf(declaration.User{SSHKeys: &declaration.SSHKeys{Keys: []string{keyA}}})
	want := "1 declared key, sha512 " + shortSum(keyA)
	detecttest.Check(t, u, []detecttest.Case{
		{"the declared key", []detect.Answer{probeOut(pwDeploy + homeDir), probeOut(rootKeys)}, detect.Converged()},
		{"surrounding whitespace is trimmed", []detect.Answer{probeOut(pwDeploy + homeDir), probeOut("shadow star\nsshdir 700 1001\nkeys file\n\n  " + keyA + "\n\n\n")}, detect.Converged()},
		{"no account is absent", []detect.Answer{probeOut(noAccount + "home none\n"), probeOut("account none\n")}, detect.Absent()},
		{"a ! lock drifts", []detect.Answer{probeOut(pwDeploy + homeDir), probeOut(strings.Replace(rootKeys, "star", "lock", 1))},
			detect.Drifted([]observation.Difference{diff("password", "! (locked)", "* (no password, not locked)")})},
		{"an empty field drifts", []detect.Answer{probeOut(pwDeploy + homeDir), probeOut(strings.Replace(rootKeys, "star", "empty", 1))},
			detect.Drifted([]observation.Difference{diff("password", "empty (no password needed)", "* (no password, not locked)")})},
		{"a password drifts", []detect.Answer{probeOut(pwDeploy + homeDir), probeOut(strings.Replace(rootKeys, "star", "other", 1))},
			detect.Drifted([]observation.Difference{diff("password", "a password", "* (no password, not locked)")})},
		{"a key added by hand drifts", []detect.Answer{probeOut(pwDeploy + homeDir), probeOut(rootKeys + keyB + "\n")},
			detect.Drifted([]observation.Difference{diff("ssh_keys", "2 key lines, sha512 "+shortSum(keyA+"\n"+keyB), want)})},
		{"no .ssh drifts", []detect.Answer{probeOut(pwDeploy + homeDir), probeOut("shadow star\nsshdir none\n")},
			detect.Drifted([]observation.Difference{diff("ssh_keys", "no authorized_keys", want)})},
		{"no authorized_keys drifts", []detect.Answer{probeOut(pwDeploy + homeDir), probeOut("shadow star\nsshdir 700 1001\nkeys none\n")},
			detect.Drifted([]observation.Difference{diff("ssh_keys", "no authorized_keys", want)})},
		{"a .ssh link drifts (and apply refuses it)", []detect.Answer{probeOut(pwDeploy + homeDir), probeOut("shadow star\nsshdir link\n")},
			detect.Drifted([]observation.Difference{diff("ssh_keys", "/home/deploy/.ssh is a symbolic link", want)})},
		{"a .ssh of the wrong mode drifts", []detect.Answer{probeOut(pwDeploy + homeDir), probeOut(strings.Replace(rootKeys, "700", "755", 1))},
			detect.Drifted([]observation.Difference{diff("ssh_dir", "mode 755, uid 1001", "mode 700, uid 1001 (deploy)")})},
		{"an authorized_keys link drifts", []detect.Answer{probeOut(pwDeploy + homeDir), probeOut("shadow star\nsshdir 700 1001\nkeys link\n")},
			detect.Drifted([]observation.Difference{diff("ssh_keys", "authorized_keys is a symbolic link", want)})},
		{"an unreadable authorized_keys drifts", []detect.Answer{probeOut(pwDeploy + homeDir), probeOut("shadow star\nsshdir 700 1001\nkeys unreadable\n")},
			detect.Drifted([]observation.Difference{diff("ssh_keys", "authorized_keys can't be read as the user", want)})},
		{"more than 1 MiB drifts", []detect.Answer{probeOut(pwDeploy + homeDir), probeOut("shadow star\nsshdir 700 1001\nkeys file\n" + strings.Repeat("x", KeysLimit+1))},
			detect.Drifted([]observation.Difference{diff("ssh_keys", "authorized_keys is larger than 1 MiB", want)})},
		{"a root probe that fails holds", []detect.Answer{probeOut(pwDeploy + homeDir), probeExit(3)},
			detect.Holding("reading the password field and authorized_keys of deploy failed (exit 3)")},
		{"sudo failing holds", []detect.Answer{probeOut(pwDeploy + homeDir), {Status: detect.StatusSudoFailed}}, detect.Holding(detect.SudoFailed)},
		{"no shadow entry holds", []detect.Answer{probeOut(pwDeploy + homeDir), probeOut("shadow none\n")}, detect.Holding("deploy has no entry in /etc/shadow")},
		{"a home hold comes first", []detect.Answer{probeOut(pwDeploy + homeOther), probeOut(rootKeys)},
			detect.Holding("/home/deploy is owned by uid 1002 (deploy's uid is 1001); chown it to deploy, or remove it: zap manages a user's home as the directory /home/deploy, the user's own or root's")},
	})
}

func TestUserVerdictCopyFrom(t *testing.T) {
	u := userOf(declaration.User{SSHKeys: &declaration.SSHKeys{CopyFrom: "ops"}})
	src := "home /home/ops\nkeys file\n" + keyA + "\n" + keyB + "\n"
	detecttest.Check(t, u, []detecttest.Case{
		{"the source's keys", []detect.Answer{probeOut(pwDeploy + homeDir), probeOut("shadow star\nsshdir 700 1001\nkeys file\n" + keyA + "\n" + keyB), probeOut(src)}, detect.Converged()},
		{"other keys drift", []detect.Answer{probeOut(pwDeploy + homeDir), probeOut(rootKeys), probeOut(src)},
			detect.Drifted([]observation.Difference{diff("ssh_keys", "1 key line, sha512 "+shortSum(keyA), "ops's authorized_keys, 2 key lines, sha512 "+shortSum(keyA+"\n"+keyB))})},
		{"a source that can't be read drifts", []detect.Answer{probeOut(pwDeploy + homeDir), probeOut(rootKeys), probeOut("home /home/ops\nkeys unreadable\n")},
			detect.Drifted([]observation.Difference{diff("ssh_keys", "1 key line, sha512 "+shortSum(keyA), "ops's authorized_keys (ops can't read it)")})},
		{"a source with none drifts, even when the user has none", []detect.Answer{probeOut(pwDeploy + homeDir), probeOut("shadow star\nsshdir none\n"), probeOut("home /home/ops\nkeys none\n")},
			detect.Drifted([]observation.Difference{diff("ssh_keys", "no authorized_keys", "ops's authorized_keys (there is none)")})},
		{"no source account drifts", []detect.Answer{probeOut(pwDeploy + homeDir), probeOut(rootKeys), probeOut("source none\n")},
			detect.Drifted([]observation.Difference{diff("ssh_keys", "1 key line, sha512 "+shortSum(keyA), "ops's authorized_keys (no such account)")})},
		{"a source probe that fails holds", []detect.Answer{probeOut(pwDeploy + homeDir), probeOut(rootKeys), probeExit(3)}, detect.Holding("reading the authorized_keys of ops failed (exit 3)")},
	})
}

func TestUserVerdictSudo(t *testing.T) {
	grant := &declaration.Sudo{Mode: "nopasswd", Commands: []string{"/usr/bin/systemctl restart nginx"}}
	text := SudoersText("deploy", grant)
	if want := "# zap: the sudo grant of deploy\ndeploy ALL=(ALL:ALL) NOPASSWD: /usr/bin/systemctl restart nginx\n"; text != want {
		t.Errorf("sudoers text %q, want %q", text, want)
	}
	if got := SudoersText("deploy", &declaration.Sudo{Mode: "password"}); got != "# zap: the sudo grant of deploy\ndeploy ALL=(ALL:ALL) PASSWD: ALL\n" {
		t.Errorf("sudoers text %q", got)
	}
	if got := SudoersText("deploy", &declaration.Sudo{Mode: "nopasswd", Commands: []string{"/bin/a", "/bin/b x"}}); !strings.HasSuffix(got, "NOPASSWD: /bin/a, /bin/b x\n") {
		t.Errorf("sudoers text %q", got)
	}
	sum := sha512Hex(strings.TrimSpace(text))
	other := "deploy ALL=(ALL:ALL) NOPASSWD: ALL"
	u := userOf(declaration.User{Sudo: grant})
	detecttest.Check(t, u, []detecttest.Case{
		{"the declared grant", []detect.Answer{probeOut(pwDeploy), {Status: detect.StatusOK, Content: text}}, detect.Converged()},
		{"the grant with whitespace around it", []detect.Answer{probeOut(pwDeploy), {Status: detect.StatusOK, Content: "\n\t " + text + "\n\n"}}, detect.Converged()},
		{"no file drifts", []detect.Answer{probeOut(pwDeploy), detecttest.Missing}, detect.Drifted([]observation.Difference{diff("sudo", "no sudoers file", "nopasswd, 1 command")})},
		{"another file drifts", []detect.Answer{probeOut(pwDeploy), {Status: detect.StatusOK, Content: other}},
			detect.Drifted([]observation.Difference{diff("sudo", "/etc/sudoers.d/deploy differs (sha512 "+sha512Hex(other)[:16]+"…)", "nopasswd, 1 command (sha512 "+sum[:16]+"…)")})},
		{"a file past the limit drifts", []detect.Answer{probeOut(pwDeploy), {Status: detect.StatusOK, Content: text, Over: true}},
			detect.Drifted([]observation.Difference{diff("sudo", "/etc/sudoers.d/deploy is longer than 65536 bytes", "nopasswd, 1 command")})},
		{"a link drifts", []detect.Answer{probeOut(pwDeploy), notRegular(detect.TypeSymlink)}, detect.Drifted([]observation.Difference{diff("sudo", "/etc/sudoers.d/deploy is a symbolic link", "nopasswd, 1 command")})},
		{"a directory holds", []detect.Answer{probeOut(pwDeploy), notRegular(detect.TypeDirectory)},
			detect.Holding("/etc/sudoers.d/deploy is a directory, not a regular file: zap replaces only a file or a symbolic link there")},
		{"a hard link holds", []detect.Answer{probeOut(pwDeploy), {Status: detect.StatusHardLinked, Links: 2}},
			detect.Holding("/etc/sudoers.d/deploy has 2 hard links: replace it with a copy of its own (a single link)")},
		{"a denied read holds", []detect.Answer{probeOut(pwDeploy), detecttest.Denied}, detect.Holding("permission denied reading /etc/sudoers.d/deploy")},
		{"no account is absent", []detect.Answer{probeOut(noAccount), detecttest.Missing}, detect.Absent()},
	})
	detecttest.Check(t, userOf(declaration.User{Sudo: &declaration.Sudo{Remove: true}}), []detecttest.Case{
		{"false with no file is converged", []detect.Answer{probeOut(pwDeploy), detecttest.Missing}, detect.Converged()},
		{"false with a file drifts", []detect.Answer{probeOut(pwDeploy), detect.Answer{Status: detect.StatusOK, SHA512: "aaaa"}}, detect.Drifted([]observation.Difference{diff("sudo", "/etc/sudoers.d/deploy is there", "no sudoers file")})},
	})
}

// root never reaches a detector: the structural gate refuses it, and Build
// reads nothing for it all the same.
func TestUserRoot(t *testing.T) {
	r := &declaration.Resource{Common: declaration.Common{ID: "r", Type: declaration.KindUser}, Body: &declaration.User{Username: "root"}}
	d := NewUser(declaration.BodyOf[*declaration.User](r), detecttest.Env(nil))
	if len(d.Queries()) != 0 || d.Verdict(nil).Verdict != observation.Undetermined {
		t.Errorf("root is read: %+v", d.Queries())
	}
	decl := &declaration.Declaration{Format: declaration.Format, Target: declaration.Target{Local: true}, Resources: []declaration.Resource{*r}}
	if err := decl.Validate(); err == nil || !strings.Contains(err.Error(), "zap doesn't manage root") {
		t.Errorf("the structural gate takes root: %v", err)
	}
}

// Whatever the probes print, the verdict never panics, and output that
// doesn't parse holds rather than reads absent or converged by accident.
func FuzzUserVerdict(f *testing.F) {
	f.Add(pwDeploy+homeDir, rootKeys, "home /home/ops\nkeys file\n"+keyA, 0)
	f.Add(noAccount+"home none\n", "account none\n", "source none\n", 0)
	f.Add("passwd a:b\n", "shadow\nsshdir 700\n", "keys", 3)
	f.Fuzz(func(t *testing.T, account, root, src string, exit int) {
		u := userOf(declaration.User{HomeMode: "711", Shell: "/bin/sh", Groups: []string{"adm"},
			SSHKeys: &declaration.SSHKeys{CopyFrom: "ops"}, Sudo: &declaration.Sudo{Mode: "nopasswd"}})
		a := []detect.Answer{{Status: detect.StatusOK, Exit: exit, Output: account}, probeOut(root), probeOut(src), detecttest.Missing}
		r := u.Verdict(a)
		switch r.Verdict {
		case observation.Undetermined:
			if r.Reason == "" {
				t.Errorf("a hold with no reason")
			}
		case observation.Absent:
			if exit != 0 || !strings.HasPrefix(account, "passwd -\n") && !strings.Contains(account, "\npasswd -\n") {
				t.Errorf("absent from %q (exit %d)", account, exit)
			}
		case observation.Drifted:
			if len(r.Drift) == 0 {
				t.Errorf("drifted with no difference")
			}
		case observation.Converged:
			t.Errorf("converged with no sudoers file")
		}
	})
}

func diff(field, observed, desired string) observation.Difference {
	return observation.Difference{Field: field, Observed: observed, Desired: desired}
}

func notRegular(t detect.FileType) detect.Answer {
	return detect.Answer{Status: detect.StatusNotRegular, Type: t}
}
