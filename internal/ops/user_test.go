package ops_test

import (
	"crypto/rand"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/kinds/user"
	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// userBusyboxTools are the commands the user scripts and probes use that
// BusyBox has as applets; useradd, usermod, visudo, sudo and getent stay
// the machine's own (Alpine's come from shadow, sudo and musl-utils).
var userBusyboxTools = []string{"awk", "cat", "chmod", "chown", "cut", "grep", "head", "id", "ls", "mkdir", "mktemp", "mv", "rm", "stat", "tr"}

// userShell is a shell the user scripts run under, with the PATH they see.
type userShell struct {
	name string
	argv []string
	path string
}

func userShells(t *testing.T) []userShell {
	return opShells(t, "user", os.Getenv("PATH"), userBusyboxTools)
}

// opShells are dash, bash and BusyBox's ash with the applets tools first on
// path, each that is installed; what says whose scripts they run, for the
// line saying BusyBox isn't there.
func opShells(t *testing.T, what, path string, tools []string) []userShell {
	t.Helper()
	var out []userShell
	for _, s := range [][]string{{"dash"}, {"bash", "--posix"}} {
		if _, err := exec.LookPath(s[0]); err != nil {
			t.Logf("%s: not installed here, not tried", s[0])
			continue
		}
		out = append(out, userShell{name: s[0], argv: s, path: path})
	}
	if bb, err := exec.LookPath("busybox"); err == nil {
		dir := t.TempDir()
		for _, tool := range tools {
			if err := os.Symlink(bb, filepath.Join(dir, tool)); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, userShell{name: "busybox", argv: []string{bb, "ash"}, path: dir + ":" + path})
	} else {
		t.Logf("busybox is not installed (apt-get install busybox): the %s scripts aren't run by BusyBox's ash and tools", what)
	}
	return out
}

// userRun runs the named operation's script as `SHELL -s -- ARGS`, its
// text on stdin, and returns the exit status and stderr.
func userRun(t *testing.T, sh userShell, name plan.OpName, args ...string) (int, string) {
	t.Helper()
	s, ok := ops.Script(name)
	if !ok {
		t.Fatalf("no script %s", name)
	}
	return userExec(t, sh, s.Text, nil, args...)
}

func userExec(t *testing.T, sh userShell, text string, stdout *strings.Builder, args ...string) (int, string) {
	t.Helper()
	return shellExec(t, sh, strings.NewReader(text), stdout, append([]string{"-s", "--"}, args...)...)
}

// streamExec runs text as a streamed script runs (`SHELL -c TEXT sh ARGS`,
// ops.StreamInvocation) with stdin, and returns the exit status and stderr.
func streamExec(t *testing.T, sh userShell, text string, stdin io.Reader, args ...string) (int, string) {
	t.Helper()
	return shellExec(t, sh, stdin, nil, append([]string{"-c", text, "sh"}, args...)...)
}

// shellExec runs sh with args and stdin, in / with PATH its own, and
// returns the exit status and stderr.
func shellExec(t *testing.T, sh userShell, stdin io.Reader, stdout *strings.Builder, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(sh.argv[0], append(append([]string(nil), sh.argv[1:]...), args...)...)
	cmd.Stdin = stdin
	cmd.Env = []string{"LC_ALL=C", "PATH=" + sh.path}
	cmd.Dir = "/"
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if stdout != nil {
		cmd.Stdout = stdout
	}
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), stderr.String()
	case err != nil:
		t.Fatal(err)
	}
	return 0, stderr.String()
}

// freshAccount returns a name no account, home or sudoers file has, and
// removes whatever the test made under it at the end. Nothing of an
// existing account is touched. The names are zapo and digits: zapu and
// digits are scripttest's account command's, whose sweep removes those of
// a process that is gone.
func freshAccount(t *testing.T) string {
	t.Helper()
	for range 20 {
		var b [3]byte
		rand.Read(b[:])
		name := fmt.Sprintf("zapo%d", uint32(b[0])<<16|uint32(b[1])<<8|uint32(b[2]))
		if exec.Command("id", "-u", name).Run() == nil {
			continue
		}
		if _, err := os.Lstat("/home/" + name); err == nil {
			continue
		}
		if _, err := os.Lstat("/etc/sudoers.d/" + name); err == nil {
			continue
		}
		t.Cleanup(func() {
			if exec.Command("id", "-u", name).Run() == nil {
				if out, err := exec.Command("userdel", "-f", "-r", name).CombinedOutput(); err != nil {
					t.Logf("userdel -f -r %s: %v: %s", name, err, out)
				}
			}
			os.RemoveAll("/home/" + name)
			os.Remove("/etc/sudoers.d/" + name)
		})
		return name
	}
	t.Fatal("no free account name")
	return ""
}

func userNeeds(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to make and remove test accounts")
	}
	for _, tool := range []string{"useradd", "usermod", "userdel", "visudo", "sudo"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s (the user scripts run it)", tool)
		}
	}
}

// userVerdict reads the account as zap-detect would, each probe run by
// the same shell (as root here), the sudoers file read natively.
func userVerdict(t *testing.T, sh userShell, spec declaration.User) detect.Result {
	t.Helper()
	d := &user.User{Spec: &spec}
	var answers []detect.Answer
	for _, q := range d.Queries() {
		switch q.Op {
		case detect.OpProbe:
			var out strings.Builder
			code, _ := userExec(t, sh, q.Command.Script(), &out)
			answers = append(answers, detect.Answer{Status: detect.StatusOK, Exit: code, Output: out.String()})
		case detect.OpContent:
			b, err := os.ReadFile(q.Path)
			switch {
			case errors.Is(err, os.ErrNotExist):
				answers = append(answers, detect.Answer{Status: detect.StatusMissing})
			case err != nil:
				t.Fatal(err)
			case len(b) > q.Limit:
				answers = append(answers, detect.Answer{Status: detect.StatusOK, Content: string(b[:q.Limit]), Over: true})
			default:
				answers = append(answers, detect.Answer{Status: detect.StatusOK, Content: string(b)})
			}
		case detect.OpDigest:
			b, err := os.ReadFile(q.Path)
			switch {
			case errors.Is(err, os.ErrNotExist):
				answers = append(answers, detect.Answer{Status: detect.StatusMissing})
			case err != nil:
				t.Fatal(err)
			default:
				s := sha512.Sum512(b)
				answers = append(answers, detect.Answer{Status: detect.StatusOK, SHA512: hex.EncodeToString(s[:])})
			}
		default:
			t.Fatalf("a user query %s", q.Op)
		}
	}
	return d.Verdict(answers)
}

// The user operations, under dash, bash and BusyBox's ash and tools, make
// an account read converged by the user probes run by the same shell, and
// refuse what they must.
func TestUserScripts(t *testing.T) {
	userNeeds(t)
	for _, sh := range userShells(t) {
		t.Run(sh.name, func(t *testing.T) {
			n := freshAccount(t)
			keys := []string{"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOne one", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAITwo two"}
			spec := declaration.User{
				Username: n, Shell: "/bin/sh", HomeMode: "750", Groups: []string{"adm"},
				SSHKeys: &declaration.SSHKeys{Keys: keys},
				Sudo:    &declaration.Sudo{Mode: "nopasswd", Commands: []string{"/usr/bin/id -u", "/bin/true"}},
			}
			if r := userVerdict(t, sh, spec); r.Verdict != observation.Absent {
				t.Fatalf("before: %+v, want absent", r)
			}
			steps := [][]string{
				{"user-account", n, "/bin/sh"},
				{"user-home", n, "750"},
				{"user-groups", n, "adm"},
				append([]string{"user-keys", n, "keys"}, keys...),
				{"user-sudo", n, "nopasswd", "/usr/bin/id -u", "/bin/true"},
			}
			for _, s := range steps {
				if code, stderr := userRun(t, sh, plan.OpName(s[0]), s[1:]...); code != 0 {
					t.Fatalf("%s: exit %d: %s", s[0], code, stderr)
				}
			}
			if r := userVerdict(t, sh, spec); r.Verdict != observation.Converged {
				t.Fatalf("after: %+v, want converged", r)
			}
			// Run again, every step is a no-op that succeeds.
			for _, s := range steps {
				if code, stderr := userRun(t, sh, plan.OpName(s[0]), s[1:]...); code != 0 {
					t.Fatalf("%s again: exit %d: %s", s[0], code, stderr)
				}
			}
			got, err := os.ReadFile("/home/" + n + "/.ssh/authorized_keys")
			if err != nil || string(got) != user.AuthorizedKeys(keys) {
				t.Errorf("authorized_keys %q (%v)", got, err)
			}
			got, err = os.ReadFile("/etc/sudoers.d/" + n)
			if err != nil || string(got) != user.SudoersText(n, spec.Sudo) {
				t.Errorf("sudoers %q (%v), want %q", got, err, user.SudoersText(n, spec.Sudo))
			}
			for path, want := range map[string]string{
				"/home/" + n:                           "750 " + n,
				"/home/" + n + "/.ssh":                 "700 " + n,
				"/home/" + n + "/.ssh/authorized_keys": "600 " + n,
				"/etc/sudoers.d/" + n:                  "440 root",
			} {
				out, _ := exec.Command("stat", "-c", "%a %U", path).Output()
				if strings.TrimSpace(string(out)) != want {
					t.Errorf("%s: %q, want %q", path, out, want)
				}
			}

			// A key added by hand and a ! lock drift; user-keys puts the
			// set and * back.
			f, _ := os.OpenFile("/home/"+n+"/.ssh/authorized_keys", os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString("ssh-ed25519 AAAAevil evil\n")
			f.Close()
			exec.Command("usermod", "-L", n).Run()
			r := userVerdict(t, sh, spec)
			if r.Verdict != observation.Drifted || len(r.Drift) != 2 || r.Drift[0].Field != "password" || r.Drift[1].Field != "ssh_keys" {
				t.Errorf("drift: %+v", r)
			}
			if code, stderr := userRun(t, sh, "user-keys", append([]string{n, "keys"}, keys...)...); code != 0 {
				t.Fatalf("user-keys: exit %d: %s", code, stderr)
			}
			if r := userVerdict(t, sh, spec); r.Verdict != observation.Converged {
				t.Errorf("after the keys again: %+v", r)
			}

			// A spec visudo rejects: exit 93, the old file stays, no
			// staged file left.
			before, _ := os.ReadFile("/etc/sudoers.d/" + n)
			code, stderr := userRun(t, sh, "user-sudo", n, "nopasswd", "ALL ALL = = =")
			if code != 93 || !strings.Contains(stderr, "visudo rejects") {
				t.Errorf("a rejected spec: exit %d: %s", code, stderr)
			}
			if after, _ := os.ReadFile("/etc/sudoers.d/" + n); string(after) != string(before) {
				t.Errorf("the old sudoers file changed: %q", after)
			}
			// visudo's complaint names the staged file.
			if m := regexp.MustCompile(`/etc/sudoers\.d/\.zap\.(lk|p[0-9]+\.[0-9]+\.[0-9]+\.[0-9a-f]+)\.[A-Za-z0-9]{6}`).FindString(stderr); m == "" {
				t.Errorf("the rejection doesn't name the staged file: %s", stderr)
			} else if _, err := os.Lstat(m); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the staged file %s is left: %v", m, err)
			}

			// A symbolic link at ~/.ssh: exit 94, nothing written through it.
			os.RemoveAll("/home/" + n + "/.ssh")
			elsewhere := t.TempDir()
			exec.Command("chown", n+":", elsewhere).Run()
			os.Chmod(filepath.Dir(elsewhere), 0o755)
			if err := os.Symlink(elsewhere, "/home/"+n+"/.ssh"); err != nil {
				t.Fatal(err)
			}
			if r := userVerdict(t, sh, spec); r.Verdict != observation.Drifted || r.Drift[0].Observed != "/home/"+n+"/.ssh is a symbolic link" {
				t.Errorf("a .ssh link: %+v", r)
			}
			code, stderr = userRun(t, sh, "user-keys", append([]string{n, "keys"}, keys...)...)
			if code != 94 || !strings.Contains(stderr, ".ssh is a symbolic link") {
				t.Errorf("a .ssh link: exit %d: %s", code, stderr)
			}
			if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
				t.Errorf("written through the link: %v", ents)
			}
			os.Remove("/home/" + n + "/.ssh")

			// sudo false removes the file; a second removal is a no-op.
			for range 2 {
				if code, stderr := userRun(t, sh, "user-sudo", n, "remove"); code != 0 {
					t.Errorf("remove: exit %d: %s", code, stderr)
				}
			}
			if _, err := os.Lstat("/etc/sudoers.d/" + n); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the sudoers file is still there: %v", err)
			}
			if r := userVerdict(t, sh, declaration.User{Username: n, Sudo: &declaration.Sudo{Remove: true}}); r.Verdict != observation.Converged {
				t.Errorf("after removal: %+v", r)
			}
		})
	}
}

// Creation refuses a home Zap won't act on, and makes nothing; a root-owned
// directory already there is given to the new account.
func TestUserAccountHome(t *testing.T) {
	userNeeds(t)
	sh := userShells(t)[0]
	n := freshAccount(t)
	home := "/home/" + n
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chown(home, 54321, 54321)
	if code, stderr := userRun(t, sh, "user-account", n); code != 94 || !strings.Contains(stderr, "owned by uid 54321") {
		t.Errorf("another uid's home: exit %d: %s", code, stderr)
	}
	if exec.Command("id", "-u", n).Run() == nil {
		t.Fatalf("the account was made")
	}
	os.Remove(home)
	os.Symlink("/tmp", home)
	if code, stderr := userRun(t, sh, "user-account", n); code != 94 || !strings.Contains(stderr, "symbolic link") {
		t.Errorf("a linked home: exit %d: %s", code, stderr)
	}
	os.Remove(home)
	os.Mkdir(home, 0o755)
	os.Chown(home, 0, 0)
	if code, stderr := userRun(t, sh, "user-account", n, "/bin/sh"); code != 0 {
		t.Fatalf("a root-owned home: exit %d: %s", code, stderr)
	}
	out, _ := exec.Command("stat", "-c", "%U %G", home).Output()
	if strings.TrimSpace(string(out)) != n+" "+n {
		t.Errorf("the home is %s's, want %s's", out, n)
	}
	// The shell is set on an existing account.
	if code, stderr := userRun(t, sh, "user-account", n, "/bin/bash"); code != 0 {
		t.Fatalf("usermod -s: exit %d: %s", code, stderr)
	}
	if out, _ := exec.Command("getent", "passwd", n).Output(); !strings.HasSuffix(strings.TrimSpace(string(out)), ":/bin/bash") {
		t.Errorf("passwd: %s", out)
	}
	// A home another uid owns, for an existing account, refuses home_mode.
	os.Chown(home, 54321, 54321)
	if code, stderr := userRun(t, sh, "user-home", n, "700"); code != 94 || !strings.Contains(stderr, "owned by uid 54321") {
		t.Errorf("user-home on another uid's home: exit %d: %s", code, stderr)
	}
}

// Copying another account's authorized_keys reads them as that account.
func TestUserKeysCopyFrom(t *testing.T) {
	userNeeds(t)
	for _, sh := range userShells(t) {
		t.Run(sh.name, func(t *testing.T) {
			src, n := freshAccount(t), freshAccount(t)
			for _, a := range []string{src, n} {
				if code, stderr := userRun(t, sh, "user-account", a); code != 0 {
					t.Fatalf("user-account %s: exit %d: %s", a, code, stderr)
				}
			}
			key := "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAISrc src"
			if code, stderr := userRun(t, sh, "user-keys", src, "keys", key); code != 0 {
				t.Fatalf("source keys: exit %d: %s", code, stderr)
			}
			spec := declaration.User{Username: n, SSHKeys: &declaration.SSHKeys{CopyFrom: src}}
			if r := userVerdict(t, sh, spec); r.Verdict != observation.Drifted {
				t.Errorf("before: %+v", r)
			}
			if code, stderr := userRun(t, sh, "user-keys", n, "copy_from", src); code != 0 {
				t.Fatalf("copy_from: exit %d: %s", code, stderr)
			}
			if r := userVerdict(t, sh, spec); r.Verdict != observation.Converged {
				t.Errorf("after: %+v", r)
			}
			// A source its own account can't read fails the copy and
			// drifts.
			os.Chmod("/home/"+src+"/.ssh/authorized_keys", 0)
			if code, stderr := userRun(t, sh, "user-keys", n, "copy_from", src); code != 93 || !strings.Contains(stderr, "can't read") {
				t.Errorf("an unreadable source: exit %d: %s", code, stderr)
			}
			if r := userVerdict(t, sh, spec); r.Verdict != observation.Drifted {
				t.Errorf("an unreadable source: %+v", r)
			}
		})
	}
}

// Where there is no sudo, the keys are written and read as the account
// through setpriv.
func TestUserKeysSetpriv(t *testing.T) {
	userNeeds(t)
	dir := t.TempDir()
	// The account runs the tools too: let it reach them.
	os.Chmod(filepath.Dir(dir), 0o755)
	os.Chmod(dir, 0o755)
	for _, tool := range []string{"sh", "awk", "base64", "cat", "chmod", "chown", "cut", "grep", "head", "id", "ls", "mkdir", "mktemp", "mv", "rm", "stat", "tr", "useradd", "usermod", "getent", "setpriv"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("needs %s", tool)
		}
		if err := os.Symlink(p, filepath.Join(dir, tool)); err != nil {
			t.Fatal(err)
		}
	}
	sh := userShell{name: "sh", argv: []string{filepath.Join(dir, "sh")}, path: dir}
	n := freshAccount(t)
	key := "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAISetpriv k"
	for _, s := range [][]string{{"user-account", n}, {"user-keys", n, "keys", key}} {
		if code, stderr := userRun(t, sh, plan.OpName(s[0]), s[1:]...); code != 0 {
			t.Fatalf("%s: exit %d: %s", s[0], code, stderr)
		}
	}
	out, _ := exec.Command("stat", "-c", "%a %U", "/home/"+n+"/.ssh/authorized_keys").Output()
	if strings.TrimSpace(string(out)) != "600 "+n {
		t.Errorf("authorized_keys: %s", out)
	}
	if r := userVerdict(t, sh, declaration.User{Username: n, SSHKeys: &declaration.SSHKeys{Keys: []string{key}}}); r.Verdict != observation.Converged {
		t.Errorf("read through setpriv: %+v", r)
	}
}

// Every user operation refuses a NAME that isn't an account Zap manages
// (lib/account.sh: empty, root, an option, a path), and user-sudo a dotted
// one, exit 2 before it acts: the scripts run with a PATH holding no tool,
// so a name let through would fail otherwise, never touch an account.
func TestUserScriptsRefuseNames(t *testing.T) {
	bad := []string{"", "root", "-x", "a/b"}
	after := map[string][]string{
		"user-account": nil,
		"user-home":    {"750"},
		"user-groups":  {"adm"},
		"user-keys":    {"keys", "ssh-ed25519 AAAA k"},
		"user-sudo":    {"nopasswd"},
	}
	for _, sh := range opShells(t, "user", t.TempDir(), nil) {
		for op, rest := range after {
			names := bad
			if op == "user-sudo" {
				names = append(slices.Clone(bad), "zapu.1")
			}
			for _, n := range names {
				code, stderr := userRun(t, sh, plan.OpName(op), append([]string{n}, rest...)...)
				if code != 2 || !strings.Contains(stderr, "is not an account zap manages") {
					t.Errorf("%s %s %q: exit %d: %s", sh.name, op, n, code, stderr)
				}
			}
		}
	}
}
