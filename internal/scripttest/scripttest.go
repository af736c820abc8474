// Package scripttest is the testscript harness every binary's script tests
// share. Main puts all six binaries on PATH, built as users get them, so a
// script can run a stage alone or the zap front end composing them; Params
// pins HOME under the script's work directory, strips the real environment,
// and adds the custom commands below.
//
// Custom commands:
//
//	run [-code N] [-stdin FILE] CMD [ARGS...]
//	    runs CMD (one of the six binaries, or any other on PATH) as the test's own user
//	    and asserts its exit status is N (default 0). Its stdout and stderr
//	    are what the next stdout and stderr commands match.
//	runas [-code N] [-stdin FILE] CMD [ARGS...]
//	    the same, as an unprivileged account: when the test runs as root, the
//	    account "zaptest" (created on first use) after $WORK is handed to it
//	    (what in it is still root's, owner and group, see HandOverTo);
//	    otherwise as the test's own user, which is already unprivileged.
//	    $RUNAS_USER names the account runas runs as, for a script that runs
//	    as root or not.
//	handover DIR
//	    gives DIR to the account runas runs as, as runas gives $WORK, and
//	    runs nothing: for a script that runs zap as root, as under sudo, on
//	    a project of a user's (zap-eval then evaluates as that user).
//
//	sshd start|kill|stop
//	    a private sshd on 127.0.0.1 for the script (see sshd.go): start
//	    brings it up with key login for root and zaptest (NOPASSWD sudo),
//	    writes ~/.ssh/config (alias zaptarget), known_hosts and an identity
//	    in HOME, and sets SSH_PORT, SSH_IDENTITY, SSH_HOSTKEY and SSH_LOG;
//	    kill kills it and every process it started; it stops at the end.
//	sshd mem start | sshd mem stop MAXKIB
//	    reads the peak memory (VmHWM) of every process the sshd started,
//	    until the stop, which fails unless the highest is under MAXKIB
//	    (sshdmem.go): the target side of a run over SSH.
//
//	nosudo
//	    puts a sudo first on the script's PATH that refuses as sudo does for
//	    an account with no rule, so a read that needs root holds whatever
//	    rules other scripts running at the same time grant zaptest.
//	sudoers allow
//	    zaptest gets NOPASSWD sudo from a drop-in of the script's own,
//	    removed at its end (sudo.go)
//	rootdir
//	    a directory of root's outside $WORK, removed at the end, as $ROOTDIR
//	account VAR
//	    $VAR names a fresh account (zapu and digits) for a script that makes
//	    it; the account, its /home/NAME and /etc/sudoers.d/NAME are removed
//	    at the end (account.go)
//	procwatch start NAME ACCOUNT | procwatch stop NAME
//	    as root: ACCOUNT reads every process's argv over and over until
//	    stop, into $WORK/procwatch/NAME (procwatch.go)
//	netns start|stop
//	    after sshd start: a network namespace joined by a veth pair on a
//	    private /30, with an sshd inside it reachable only there, as the
//	    ~/.ssh/config alias zapnetns (netns.go); [netns] when one can be made
//
//	httpserve start DIR [TOKEN]
//	    a plain-http server on 127.0.0.1 serving DIR, with a bearer-gated
//	    /private/, redirects on and off loopback, and a request log; sets
//	    HTTP_URL (httpserve.go)
//
//	lab start systemd|openrc | lab start KIND:ALIAS... | lab exec [-code N] CMD... | lab stop
//	    a fresh systemd or OpenRC host of internal/lab, reachable over SSH
//	    as the ~/.ssh/config alias zaplab (lab.go); [lab:systemd] and
//	    [lab:openrc] when this machine can run one
//	blake3 FILE VAR
//	    sets VAR to the blake3 of FILE, a pin's form (blake3.go)
//
// testscript's own chmod (one file, permission bits only) and symlink
// (symlink LINK -> TARGET) are available as usual.
//
// Conditions: [root] is true when the test runs as root; [sshd] when a
// private sshd can run (root, with sshd, ssh and sudo installed).
//
// Setting ZAP_UPDATE=1 rewrites the golden files inside the archives.
package scripttest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// Main runs a package's tests with the six binaries first on PATH, built
// as users get them: CGO_ENABLED=0 and make build's flags, plus the build
// tag zaptest, which lets them honour the scripts' test hooks
// (internal/testhook) and changes nothing else. The test binary itself is
// built with -race and cgo; the binaries its scripts run are not, so the
// scripts take the same paths a user's binaries take (the evaluator's
// sandbox among them: a cgo build reaches Landlock through libpsx's C code,
// a static one through syscall.AllThreadsSyscall).
//
// $ZAP_TEST_BIN names a directory holding them already built (make test
// builds them once, into bin/test, for every package); otherwise Main
// builds them into a temporary directory of its own, removed when the
// tests end.
func Main(m *testing.M) {
	if os.Getenv(procwatchEnv) != "" {
		os.Exit(procwatchMain())
	}
	dir, cleanup, err := stageBinaries()
	if err != nil {
		fmt.Fprintf(os.Stderr, "scripttest: %v\n", err)
		os.Exit(1)
	}
	stageDir = dir
	os.Setenv("PATH", dir+string(filepath.ListSeparator)+os.Getenv("PATH"))
	code := m.Run()
	cleanup()
	os.Exit(code)
}

// Binaries are the six programs the scripts run.
var Binaries = []string{"zap", "zap-eval", "zap-detect", "zap-plan", "zap-exec", "zap-deploy"}

// stageDir is where the binaries the scripts run are (set by Main).
var stageDir string

// stageBinaries finds or builds the binaries, and returns their directory
// and what removes it.
func stageBinaries() (string, func(), error) {
	if dir := os.Getenv("ZAP_TEST_BIN"); dir != "" {
		if !filepath.IsAbs(dir) {
			return "", nil, fmt.Errorf("ZAP_TEST_BIN %s is not an absolute path", dir)
		}
		for _, b := range Binaries {
			if !isExec(filepath.Join(dir, b)) {
				return "", nil, fmt.Errorf("ZAP_TEST_BIN %s has no %s: build them with make testbin, or unset it to build them here", dir, b)
			}
		}
		return dir, func() {}, nil
	}
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", nil, fmt.Errorf("go env GOMOD: %w", err)
	}
	root := filepath.Dir(strings.TrimSpace(string(gomod)))
	dir, err := os.MkdirTemp("", "zap-testbin-")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	// runas's account execs them: the directory is searchable by all.
	if err := os.Chmod(dir, 0o755); err != nil {
		cleanup()
		return "", nil, err
	}
	args := []string{"build", "-tags", "zaptest", "-trimpath", "-buildvcs=false", "-o", dir + "/"}
	for _, b := range Binaries {
		args = append(args, "./cmd/"+b)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("build the binaries the scripts run (go %s): %v\n%s", strings.Join(args, " "), err, out)
	}
	return dir, cleanup, nil
}

// TestAccount is the unprivileged account runas uses when tests run as root.
const TestAccount = "zaptest"

// Params returns the testscript parameters for the scripts in dir.
func Params(dir string) testscript.Params {
	return testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       os.Getenv("ZAP_UPDATE") != "",
		Setup:               setup,
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "root":
				return os.Geteuid() == 0, nil
			case "sshd":
				return haveSSHD(), nil
			case "netns":
				return haveNetns(), nil
			}
			if kind, ok := strings.CutPrefix(cond, "lab:"); ok {
				return haveLab(kind)
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"run":      func(ts *testscript.TestScript, neg bool, args []string) { run(ts, neg, args, false) },
			"runas":    func(ts *testscript.TestScript, neg bool, args []string) { run(ts, neg, args, true) },
			"handover": cmdHandover,
			"sshd":     cmdSSHD,
			// sudoers and rootdir: see sudo.go.
			"sudoers": cmdSudoers,
			"nosudo":  cmdNosudo,
			"rootdir": cmdRootDir,
			// netns: see netns.go.
			"netns": cmdNetns,
			// https: see https.go.
			"https": cmdHTTPS,
			// httpserve: see httpserve.go.
			"httpserve": cmdHTTPServe,
			// lab: see lab.go.
			"lab": cmdLab,
			// account: see account.go.
			"account": cmdAccount,
			// procwatch: see procwatch.go.
			"procwatch": cmdProcwatch,
			// blake3: see blake3.go.
			"blake3": cmdBlake3,
		},
	}
}

func setup(env *testscript.Env) error {
	home := filepath.Join(env.WorkDir, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		return err
	}
	env.Setenv("HOME", home)
	env.Setenv("TZ", "UTC")
	// A race-enabled binary sleeps a second at exit by default; the scripts
	// run hundreds of them.
	env.Setenv("GORACE", "atexit_sleep_ms=0")
	env.Setenv("LC_ALL", "C")
	if u, err := user.Current(); err == nil {
		env.Setenv("USER", u.Username)
		env.Setenv("LOGNAME", u.Username)
		env.Setenv("RUNAS_USER", u.Username)
	}
	if os.Geteuid() == 0 {
		env.Setenv("RUNAS_USER", TestAccount)
	}
	if d := os.Getenv("GOCOVERDIR"); d != "" {
		env.Setenv("GOCOVERDIR", d)
	}
	return nil
}

// runOpts is what runFlags reads: the exit status asserted and the file the
// command reads as its stdin ("" for none).
type runOpts struct {
	code  int
	stdin string
}

// runFlags reads the flags run, runas and lab exec share: -code N (the exit
// status asserted, 0 unless given) and -stdin FILE; then the command.
func runFlags(ts *testscript.TestScript, name string, args []string) (opts runOpts, rest []string) {
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch {
		case args[0] == "-code" && len(args) > 1:
			n, err := strconv.Atoi(args[1])
			if err != nil {
				ts.Fatalf("%s: -code wants a number, not %q", name, args[1])
			}
			opts.code = n
			args = args[2:]
		case args[0] == "-stdin" && len(args) > 1:
			opts.stdin = ts.MkAbs(args[1])
			args = args[2:]
		default:
			ts.Fatalf("%s: unknown flag %q", name, args[0])
		}
	}
	if len(args) == 0 {
		ts.Fatalf("usage: %s [-code N] [-stdin FILE] CMD [ARGS...]", name)
	}
	return opts, args
}

// runChecked runs cmd, the command prog, as the flags asked: its stdin
// the -stdin file, its stdout and stderr handed to the script (what the
// next stdout and stderr commands match), and the script failed unless it
// exits with the -code status. name is the script command that ran it
// (run, lab exec); where, where it ran, as the failure says it (" in the
// lab host").
func (o runOpts) runChecked(ts *testscript.TestScript, cmd *exec.Cmd, name, prog, where string) {
	if o.stdin != "" {
		f, err := os.Open(o.stdin)
		ts.Check(err)
		defer f.Close()
		cmd.Stdin = f
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	ts.Stdout().Write(stdout.Bytes())
	ts.Stderr().Write(stderr.Bytes())
	got := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("%s %s: %v", name, prog, err)
		}
		got = ee.ExitCode()
	}
	if got != o.code {
		ts.Logf("stdout:\n%s", stdout.String())
		ts.Logf("stderr:\n%s", stderr.String())
		ts.Fatalf("%s exited %d%s, want %d", prog, got, where, o.code)
	}
}

func run(ts *testscript.TestScript, neg bool, args []string, unprivileged bool) {
	if neg {
		ts.Fatalf("use -code N rather than !")
	}
	opts, args := runFlags(ts, "run", args)
	path, err := exec.LookPath(args[0])
	if err != nil {
		// Look the command up on the script's own PATH.
		for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
			if p := filepath.Join(dir, args[0]); isExec(p) {
				path = p
				break
			}
		}
		if path == "" {
			ts.Fatalf("run: %v", err)
		}
	}
	cmd := exec.Command(path, args[1:]...)
	cmd.Args[0] = args[0]
	cmd.Env = scriptEnv(ts)
	// PWD is not in the script's environment (testscript adds it only when it
	// execs), so the working directory is the script's current one, as cd sets it.
	cmd.Dir = ts.MkAbs(".")
	if unprivileged {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: Unprivileged(ts)}
	}
	opts.runChecked(ts, cmd, "run", args[0], "")
}

// Unprivileged is the credential runas runs a command with: when the test
// runs as root, the test account's, after $WORK is handed to it; otherwise
// nil, the test's own user, which is already unprivileged. A script command
// of a binary's own that runs the operator's command calls it, so the
// command runs as a user runs it.
func Unprivileged(ts *testscript.TestScript) *syscall.Credential {
	if os.Geteuid() != 0 {
		return nil
	}
	cred, err := handOver(ts)
	ts.Check(err)
	return cred
}

// cmdHandover is the handover command: as root, DIR is given to the test
// account as runas gives $WORK; otherwise nothing, the test's user owning
// it already.
func cmdHandover(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: handover DIR")
	}
	if os.Geteuid() != 0 {
		return
	}
	ts.Check(ensureAccount())
	_, err := handOverDir(ts, TestAccount, ts.MkAbs(args[0]))
	ts.Check(err)
}

func isExec(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// scriptEnv is the environment the script has set, as exec would pass it.
// testscript keeps its environment private, so it is read back through env.
func scriptEnv(ts *testscript.TestScript) []string {
	ts.Check(ts.Exec("env", "-0"))
	var env []string
	for _, kv := range strings.Split(ts.ReadFile("stdout"), "\x00") {
		if kv != "" {
			env = append(env, kv)
		}
	}
	return env
}

// ensureAccount creates the test account on first use, under the lock
// every test binary takes (addTestAccount).
func ensureAccount() error { return addTestAccount() }

// handOver makes sure the test account exists, gives it $WORK, and returns
// its credential.
func handOver(ts *testscript.TestScript) (*syscall.Credential, error) {
	if err := ensureAccount(); err != nil {
		return nil, err
	}
	return HandOverTo(ts, TestAccount)
}

// HandOverTo gives $WORK to the account name and lets it reach $WORK and
// the registered binaries; it returns the account's credential, for a
// script command of a binary's own that runs something as that account.
// What it gives is what is still root's, owner and group: what the script
// made is the account's, as a user's project is theirs, and what the
// script gave another owner or group (chown, chgrp) stays theirs.
func HandOverTo(ts *testscript.TestScript, name string) (*syscall.Credential, error) {
	return handOverDir(ts, name, ts.Getenv("WORK"))
}

// handOverDir is HandOverTo for dir, $WORK or a directory in it.
func handOverDir(ts *testscript.TestScript, name, dir string) (*syscall.Credential, error) {
	u, err := user.Lookup(name)
	if err != nil {
		return nil, err
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || st.Uid != 0 || st.Gid != 0 {
			return nil
		}
		return os.Lchown(p, uid, gid)
	}); err != nil {
		return nil, err
	}
	// Let the account reach dir and the binaries: every directory above
	// them gets search permission for others.
	for _, start := range []string{dir, stageDir} {
		for d := filepath.Dir(start); d != "/" && d != "."; d = filepath.Dir(d) {
			fi, err := os.Stat(d)
			if err != nil {
				return nil, err
			}
			if fi.Mode().Perm()&0o001 == 0 {
				if err := os.Chmod(d, fi.Mode().Perm()|0o011); err != nil {
					return nil, err
				}
			}
		}
		if fi, err := os.Stat(start); err == nil && fi.Mode().Perm()&0o001 == 0 {
			os.Chmod(start, fi.Mode().Perm()|0o011)
		}
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}
