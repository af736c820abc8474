package scripttest

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/zap-go/zap/internal/proctree"
)

// SSHHost is the ~/.ssh/config alias `sshd start` gives the private sshd.
const SSHHost = "zaptarget"

// sshdBinary is the sshd the harness runs; it must be named absolutely,
// since sshd re-executes itself.
const sshdBinary = "/usr/sbin/sshd"

// sshdState is one script's private sshd.
type sshdState struct {
	cmd     *exec.Cmd
	port    int
	dir     string
	sudoers string
}

var sshds sync.Map // *testscript.TestScript -> *sshdState

// haveSSHD reports whether a private sshd can run: as root, with sshd,
// ssh-keygen, ssh and sudo installed.
func haveSSHD() bool {
	if os.Geteuid() != 0 {
		return false
	}
	for _, p := range []string{sshdBinary} {
		if _, err := os.Stat(p); err != nil {
			return false
		}
	}
	for _, c := range []string{"ssh", "ssh-keygen", "sudo"} {
		if _, err := exec.LookPath(c); err != nil {
			return false
		}
	}
	return true
}

// cmdSSHD is the sshd command:
//
//	sshd start   a private sshd on 127.0.0.1:<free port>
//	sshd kill    kill it and every process it started (sessions included)
//	sshd stop    stop it (done at the script's end anyway)
//	sshd mem start | sshd mem stop MAXKIB
//	             the peak memory of its sessions' processes (sshdmem.go)
func cmdSSHD(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("sshd: ! makes no sense here")
	}
	if len(args) > 0 && args[0] == "mem" {
		v, ok := sshds.Load(ts)
		if !ok {
			ts.Fatalf("sshd mem: sshd not started")
		}
		cmdSSHDMem(ts, v.(*sshdState), args[1:])
		return
	}
	if len(args) != 1 {
		ts.Fatalf("usage: sshd start|kill|stop")
	}
	switch args[0] {
	case "start":
		if !haveSSHD() {
			ts.Fatalf("sshd: a private sshd needs root, %s, ssh, ssh-keygen and sudo; guard the script with [!sshd] skip", sshdBinary)
		}
		if _, ok := sshds.Load(ts); ok {
			ts.Fatalf("sshd: already started")
		}
		st, err := startSSHD(ts)
		ts.Check(err)
		sshds.Store(ts, st)
		ts.Defer(func() { st.stop(); sshds.Delete(ts) })
	case "kill", "stop":
		v, ok := sshds.Load(ts)
		if !ok {
			ts.Fatalf("sshd: not started")
		}
		st := v.(*sshdState)
		if args[0] == "kill" {
			st.killTree()
		} else {
			st.stop()
		}
	default:
		ts.Fatalf("usage: sshd start|kill|stop")
	}
}

// startSSHD brings up sshd with its own host key, config and
// authorized_keys under $WORK/sshd, key login for root and the test
// account (and for any account through its own ~/.ssh/authorized_keys, as
// a user resource writes it), and the test account given NOPASSWD sudo by
// a drop-in. It writes
// the client side into the script's HOME: an identity, a ~/.ssh/config with
// the alias zaptarget, and known_hosts holding the host key; and it puts an
// ssh on PATH that reads that config (ssh reads the account's own home, not
// HOME). It sets SSH_PORT, SSH_IDENTITY, SSH_HOSTKEY (the public host key
// line) and SSH_LOG (sshd's log, LogLevel VERBOSE). $SSHD_SETENV, when the
// script sets it, is a SetEnv line's NAME=VALUE pairs for every session.
func startSSHD(ts *testscript.TestScript) (*sshdState, error) {
	if err := addTestAccount(); err != nil {
		return nil, err
	}
	work := ts.Getenv("WORK")
	dir := filepath.Join(work, "sshd")
	sshDir := filepath.Join(ts.Getenv("HOME"), ".ssh")
	hostKey, identity, err := sshdKeys(dir, sshDir)
	if err != nil {
		return nil, err
	}
	pub, err := os.ReadFile(identity + ".pub")
	if err != nil {
		return nil, err
	}
	authorized := filepath.Join(dir, "authorized_keys")
	if err := os.WriteFile(authorized, pub, 0o644); err != nil {
		return nil, err
	}
	hostPub, err := os.ReadFile(hostKey + ".pub")
	if err != nil {
		return nil, err
	}
	sudoers, err := SudoersDropIn("zaptest-sshd-")
	if err != nil {
		return nil, err
	}
	st := &sshdState{dir: dir, sudoers: sudoers}
	log := filepath.Join(dir, "log")
	config := filepath.Join(dir, "sshd_config")
	setenv := ""
	if env := ts.Getenv("SSHD_SETENV"); env != "" {
		// Variables every session gets (sshd's SetEnv), such as the
		// CURL_CA_BUNDLE that trusts an `https start` server.
		setenv = "SetEnv " + env + "\n"
	}
	cmd, port, err := startSSHDOn(config, log, func(port int) string {
		return fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %s
PidFile %s
AuthorizedKeysFile %s .ssh/authorized_keys
UsePAM yes
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
StrictModes no
LogLevel VERBOSE
`, port, hostKey, filepath.Join(dir, "sshd.pid"), authorized) + setenv
	})
	if err != nil {
		st.stop()
		return nil, err
	}
	st.cmd, st.port = cmd, port
	hostLine := fmt.Sprintf("[127.0.0.1]:%d %s", port, hostKeyOf(hostPub))
	bin := filepath.Join(work, "sshbin")
	if err := writeSSHClient(sshDir, port, identity, hostLine); err != nil {
		st.stop()
		return nil, err
	}
	if err := installSSH(bin, sshDir); err != nil {
		st.stop()
		return nil, err
	}
	ts.Setenv("PATH", bin+string(filepath.ListSeparator)+ts.Getenv("PATH"))
	ts.Setenv("SSH_PORT", strconv.Itoa(port))
	ts.Setenv("SSH_IDENTITY", identity)
	ts.Setenv("SSH_HOSTKEY", hostLine)
	ts.Setenv("SSH_LOG", log)
	return st, nil
}

// sshdKeys makes the server's directory dir and the client's sshDir (and
// sshd's /run/sshd), lets every account reach dir (sshd reads
// authorized_keys there as the account logging in), and makes in them the
// host key and the client's identity, returning their paths.
func sshdKeys(dir, sshDir string) (hostKey, identity string, err error) {
	for _, d := range []string{dir, sshDir, "/run/sshd"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", "", err
		}
	}
	os.Chmod(dir, 0o755)
	os.Chmod(sshDir, 0o700)
	for d := dir; d != "/" && d != "."; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil && fi.Mode().Perm()&0o001 == 0 {
			os.Chmod(d, fi.Mode().Perm()|0o001)
		}
	}
	hostKey = filepath.Join(dir, "host_ed25519")
	identity = filepath.Join(sshDir, "id_ed25519")
	for _, k := range []string{hostKey, identity} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "zaptest", "-f", k).CombinedOutput(); err != nil {
			return "", "", fmt.Errorf("ssh-keygen: %v: %s", err, out)
		}
	}
	return hostKey, identity, nil
}

// hostKeyOf is the key of a public host key file's text, without its
// zaptest comment: what known_hosts holds after the host's name.
func hostKeyOf(pub []byte) string {
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(string(pub)), "zaptest"))
}

// writeSSHClient writes the client side into sshDir: a config with the alias
// SSHHost for 127.0.0.1:port, identity as every host's identity and
// known_hosts (holding hostLine alone) as the only known hosts.
func writeSSHClient(sshDir string, port int, identity, hostLine string) error {
	clientConf := fmt.Sprintf(`Host %s
  HostName 127.0.0.1
  Port %d
Host *
  IdentityFile %s
  UserKnownHostsFile %s
  GlobalKnownHostsFile /dev/null
`, SSHHost, port, identity, filepath.Join(sshDir, "known_hosts"))
	if err := os.WriteFile(filepath.Join(sshDir, "config"), []byte(clientConf), 0o600); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(sshDir, "known_hosts"), []byte(hostLine+"\n"), 0o600)
}

// installSSH puts in bin (made when missing) an ssh that reads the config
// in sshDir: ssh reads the account's own home, not HOME, and zap reads an
// alias through `ssh -G`.
func installSSH(bin, sshDir string) error {
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return err
	}
	ssh, err := exec.LookPath("ssh")
	if err != nil {
		return err
	}
	wrapper := fmt.Sprintf("#!/bin/sh\nexec %s -F %s \"$@\"\n", ssh, filepath.Join(sshDir, "config"))
	return os.WriteFile(filepath.Join(bin, "ssh"), []byte(wrapper), 0o755)
}

// startSSHDOn starts sshd -D with the config conf makes for a port, written
// to config, logging to log, and waits until it listens. The port is one
// nothing listened on a moment before (freePort), which another process
// may take in between: sshd then can't bind it, and another port is tried.
// sshd is up once its log says it listens on the port, so the server that
// port reaches is this one, never another process's.
func startSSHDOn(config, log string, conf func(port int) string) (*exec.Cmd, int, error) {
	for try := 1; ; try++ {
		port, err := freePort()
		if err != nil {
			return nil, 0, err
		}
		if err := os.WriteFile(config, []byte(conf(port)), 0o644); err != nil {
			return nil, 0, err
		}
		if err := os.WriteFile(log, nil, 0o644); err != nil {
			return nil, 0, err
		}
		cmd := exec.Command(sshdBinary, "-D", "-f", config, "-E", log)
		if err := cmd.Start(); err != nil {
			return nil, 0, fmt.Errorf("start sshd: %w", err)
		}
		exited, err := awaitListen(cmd, port, log)
		if err == nil {
			return cmd, port, nil
		}
		if !exited {
			(&sshdState{cmd: cmd}).killTree()
			return nil, 0, err
		}
		if out, _ := os.ReadFile(log); try == 5 || !strings.Contains(string(out), "Address already in use") {
			return nil, 0, err
		}
	}
}

// awaitListen waits, up to 10 s, until the sshd cmd (started, logging to
// log) says in its log that it listens on 127.0.0.1:port. When it exits
// first, the error holds its log and exited is true (it is reaped).
func awaitListen(cmd *exec.Cmd, port int, log string) (exited bool, err error) {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	listening := fmt.Sprintf("Server listening on 127.0.0.1 port %d.", port)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if out, _ := os.ReadFile(log); strings.Contains(string(out), listening) {
			break
		}
		select {
		case err := <-done:
			out, _ := os.ReadFile(log)
			return true, fmt.Errorf("sshd exited (%v): %s", err, out)
		default:
		}
		if time.Now().After(deadline) {
			return false, errors.New("sshd didn't listen within 10s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	go func() { <-done }()
	return false, nil
}

// stop kills sshd and what it started, and removes the sudoers drop-in.
func (st *sshdState) stop() {
	st.killTree()
	if st.sudoers != "" {
		os.Remove(st.sudoers)
		st.sudoers = ""
	}
}

// killTree kills sshd and every process descended from it, by PID.
func (st *sshdState) killTree() {
	if st.cmd == nil || st.cmd.Process == nil {
		return
	}
	root := st.cmd.Process.Pid
	pids := proctree.Descendants(root)
	syscall.Kill(root, syscall.SIGKILL)
	for _, p := range pids {
		syscall.Kill(p, syscall.SIGKILL)
	}
	st.cmd = nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
