package scripttest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/zap-go/zap/internal/proctree"
)

// SSHD is a private sshd on 127.0.0.1 started from a Go test (StartSSHD):
// its own host key and config in a temporary directory, key login for root
// and TestAccount, and an ssh client side of its own.
type SSHD struct {
	// Port is where it listens, on 127.0.0.1.
	Port int
	// Identity is the private key that logs in as root or TestAccount.
	// (Logging in as root runs root's shell startup files, which a test
	// machine may have made slow: log in as TestAccount.)
	Identity string
	// Config is an ssh client config for it: any host with Identity, a
	// known_hosts file of its own (empty: the first connection records the
	// key), no global one.
	Config string
	// Bin is a directory holding an ssh that reads Config: put it first on
	// PATH for what runs `ssh -G`.
	Bin string

	st *sshdState
}

// StartSSHD starts a private sshd for the test t, stopped when t ends, or
// skips t (saying why) where one can't run: it needs root, sshd, ssh,
// ssh-keygen and sudo. As the script command `sshd start` does, it gives
// TestAccount NOPASSWD sudo by a drop-in of its own, removed when t ends.
func StartSSHD(t testing.TB) *SSHD {
	t.Helper()
	if !haveSSHD() {
		t.Skipf("skipped: a private sshd needs root, %s, ssh, ssh-keygen and sudo", sshdBinary)
	}
	if err := addTestAccount(); err != nil {
		t.Fatal(err)
	}
	// sshd reads authorized_keys as the account logging in: a directory
	// every account can search.
	dir, err := os.MkdirTemp("", "zap-sshd-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	for d := dir; d != "/" && d != "."; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil && fi.Mode().Perm()&0o001 == 0 {
			os.Chmod(d, fi.Mode().Perm()|0o001)
		}
	}
	os.Chmod(dir, 0o755)
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		t.Fatal(err)
	}
	hostKey := filepath.Join(dir, "host_ed25519")
	identity := filepath.Join(dir, "id_ed25519")
	for _, k := range []string{hostKey, identity} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "zaptest", "-f", k).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v: %s", err, out)
		}
	}
	pub, err := os.ReadFile(identity + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	authorized := filepath.Join(dir, "authorized_keys")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(authorized, pub, 0o644))
	sudoers, err := SudoersDropIn("zaptest-sshd-")
	must(err)
	t.Cleanup(func() { os.Remove(sudoers) })
	cmd, port, err := startSSHDOn(filepath.Join(dir, "sshd_config"), filepath.Join(dir, "log"), func(port int) string {
		return fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %s
PidFile %s
AuthorizedKeysFile %s
UsePAM yes
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
StrictModes no
MaxStartups 100
MaxSessions 100
LogLevel VERBOSE
`, port, hostKey, filepath.Join(dir, "sshd.pid"), authorized)
	})
	must(err)
	st := &sshdState{cmd: cmd, port: port, dir: dir}
	t.Cleanup(st.stop)
	s := &SSHD{Port: port, Identity: identity, Config: filepath.Join(dir, "ssh_config"), Bin: filepath.Join(dir, "bin"), st: st}
	must(os.WriteFile(s.Config, []byte(fmt.Sprintf(`Host *
  IdentityFile %s
  UserKnownHostsFile %s
  GlobalKnownHostsFile /dev/null
`, identity, filepath.Join(dir, "known_hosts"))), 0o644))
	must(os.Mkdir(s.Bin, 0o755))
	ssh, err := exec.LookPath("ssh")
	must(err)
	must(os.WriteFile(filepath.Join(s.Bin, "ssh"), []byte(fmt.Sprintf("#!/bin/sh\nexec %s -F %s \"$@\"\n", ssh, s.Config)), 0o755))
	return s
}

// KillSessions sends SIGKILL to every process the sshd started (its
// connections, their sessions and what those run, sudo and its command
// included), by PID; the sshd itself goes on listening.
func (s *SSHD) KillSessions() {
	if s.st == nil || s.st.cmd == nil || s.st.cmd.Process == nil {
		return
	}
	// Again while a process was starting another one.
	for range 3 {
		pids := proctree.Descendants(s.st.cmd.Process.Pid)
		if len(pids) == 0 {
			return
		}
		for _, p := range pids {
			syscall.Kill(p, syscall.SIGKILL)
		}
	}
}

// KillCommands sends SIGKILL to every process below the sshd that isn't an
// sshd itself (what the sessions run: their shells, sudo and its command),
// by PID; the connections stay up, each killed session ending with the
// signal.
func (s *SSHD) KillCommands() {
	if s.st == nil || s.st.cmd == nil || s.st.cmd.Process == nil {
		return
	}
	// Again while a process was starting another one.
	for range 3 {
		killed := 0
		for _, p := range proctree.Descendants(s.st.cmd.Process.Pid) {
			comm, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p), "comm"))
			if err != nil || strings.TrimSpace(string(comm)) == "sshd" {
				continue
			}
			syscall.Kill(p, syscall.SIGKILL)
			killed++
		}
		if killed == 0 {
			return
		}
	}
}

// KillConnections sends SIGKILL to the sshd processes serving the
// connections (every sshd below the listening one), by PID, and to nothing
// else: each connection drops (the kernel closes its socket), while what
// its sessions ran is left running, orphaned, to find its pipes closed on
// its own, as after a connection lost on the way. It returns those
// processes, as they were when the connections were killed.
func (s *SSHD) KillConnections() []proctree.Proc {
	if s.st == nil || s.st.cmd == nil || s.st.cmd.Process == nil {
		return nil
	}
	var left []proctree.Proc
	// Again while the sshd was forking a connection's process.
	for range 3 {
		killed := 0
		for _, p := range proctree.Descendants(s.st.cmd.Process.Pid) {
			comm, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p), "comm"))
			if err != nil {
				continue
			}
			if strings.TrimSpace(string(comm)) != "sshd" {
				left = append(left, proctree.Of(p))
				continue
			}
			syscall.Kill(p, syscall.SIGKILL)
			killed++
		}
		if killed == 0 {
			break
		}
	}
	return left
}
