package lab

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/zap-go/zap/internal/proctree"
)

// Host is one booted lab host.
type Host struct {
	Kind Kind
	// Name is its host name (and the machine name systemd-nspawn gives it),
	// zaplab- and 8 hex digits, new at every boot.
	Name string
	// Addr and Port are where its sshd listens, reachable from the
	// machine's own network namespace.
	Addr string
	Port int
	// HostKey is its sshd's public key ("ssh-ed25519 AAAA..."), as a
	// known_hosts line wants it after the address.
	HostKey string
	// Root is its root file system as the machine sees it.
	Root string
	// Dir holds its clone and console log (Dir/console.log).
	Dir string
	// Netns is its network namespace, /run/netns/<Netns>, and Veth the
	// machine's end of the veth pair joining it to the bridge. Like Name
	// and Dir, they are new at every boot.
	Netns string
	Veth  string
	// PID is its PID 1 as the machine sees it.
	PID int
	// State is what `systemctl is-system-running --wait` answered at boot
	// (systemd hosts; "" on OpenRC).
	State string
	// Identity is the private key whose public half root and zaptest
	// accept (set by Start; Boot's caller brings its own).
	Identity string

	lease *lease
}

// Options say what host Boot brings up.
type Options struct {
	Kind Kind
	// AuthorizedKeys are written to root's and zaptest's authorized_keys.
	AuthorizedKeys []byte
	// NspawnArgs are added to systemd-nspawn's (for example
	// --system-call-filter=@swap); systemd hosts only.
	NspawnArgs []string
	// Copy clones the image by cp -a rather than overlayfs (what Boot
	// falls back to where overlayfs can't be mounted).
	Copy bool
}

// lease is a host's claim on an address, and the record of everything it
// made, so whoever finds its owner dead can tear it down. A name is
// recorded only once the host has made what it names, and every name is
// new at each boot (newName), so tearing a lease down never reaches
// anything of another host's, not even a later one's on the same address.
type lease struct {
	N        int           `json:"n"`
	Owner    proctree.Proc `json:"owner"`
	Launcher proctree.Proc `json:"launcher"`
	Init     proctree.Proc `json:"init"`
	Netns    string        `json:"netns"`
	Veth     string        `json:"veth"`
	Dir      string        `json:"dir"`
	Root     string        `json:"root"`
}

func leaseDir() string        { return filepath.Join(RunDir(), "leases") }
func (l *lease) file() string { return filepath.Join(leaseDir(), strconv.Itoa(l.N)+".json") }
func (l *lease) addr() string { return fmt.Sprintf("10.233.%d.%d", l.N>>8, l.N&255) }

func (l *lease) save() error {
	data, err := json.Marshal(l)
	if err != nil {
		return err
	}
	tmp := l.file() + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, l.file())
}

func readLeases() []*lease {
	entries, _ := os.ReadDir(leaseDir())
	var out []*lease
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(leaseDir(), e.Name()))
		if err != nil {
			continue
		}
		var l lease
		if json.Unmarshal(data, &l) == nil && l.N > 0 {
			out = append(out, &l)
		}
	}
	return out
}

// maxHosts bounds the addresses handed out: 10.233.0.2 to 10.233.0.250.
const maxHosts = 250

// Boot brings up a fresh host of opts.Kind: builds its image if needed,
// clones it, joins the clone to the bridge in a network namespace of its
// own, boots it and waits for its sshd. The caller stops it.
func Boot(opts Options) (*Host, error) {
	if err := Available(opts.Kind); err != nil {
		return nil, err
	}
	// The lease comes before the image: no builder prunes images while a
	// live lease is there (pruneImages), so the image Build finds stays
	// while this host's clone sits on it.
	l, err := claim()
	if err != nil {
		return nil, err
	}
	h := &Host{Kind: opts.Kind, Addr: l.addr(), Port: 22, lease: l}
	// Every kind the machine can run is built at once (side by side), so
	// tests of the other kind don't wait for a second build.
	kinds := []Kind{opts.Kind}
	for _, k := range Kinds {
		if k != opts.Kind && Available(k) == nil {
			kinds = append(kinds, k)
		}
	}
	if err := Build(nil, kinds...); err != nil {
		h.Stop()
		return nil, err
	}
	if err := h.boot(opts); err != nil {
		h.Stop()
		return nil, err
	}
	countBoot(opts.Kind)
	return h, nil
}

// claim takes the run lock, tears down hosts whose owner is gone, makes
// sure the bridge and the cacher are up, and leases the lowest free
// address.
func claim() (*lease, error) {
	unlock, err := lockFile(filepath.Join(RunDir(), "lock"))
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := os.MkdirAll(leaseDir(), 0o755); err != nil {
		return nil, err
	}
	used := map[int]bool{}
	for _, l := range readLeases() {
		if l.Owner.Alive() {
			used[l.N] = true
			continue
		}
		l.reap()
		os.Remove(l.file())
	}
	if err := ensureBridge(); err != nil {
		return nil, err
	}
	if err := ensureCacher(); err != nil {
		return nil, err
	}
	for n := 2; n <= maxHosts; n++ {
		if used[n] {
			continue
		}
		l := &lease{N: n, Owner: proctree.Self()}
		if err := l.save(); err != nil {
			return nil, err
		}
		return l, nil
	}
	return nil, fmt.Errorf("all %d lab addresses are leased", maxHosts-1)
}

func run(name string, args ...string) error {
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// ensureBridge creates the bridge with its address unless it is there.
func ensureBridge() error {
	if exec.Command("ip", "link", "show", Bridge).Run() != nil {
		if err := run("ip", "link", "add", Bridge, "type", "bridge"); err != nil {
			return err
		}
	}
	out, _ := exec.Command("ip", "-4", "addr", "show", "dev", Bridge).Output()
	if !strings.Contains(string(out), " "+BridgeAddr+"/") {
		if err := run("ip", "addr", "add", fmt.Sprintf("%s/%d", BridgeAddr, bridgePfx), "dev", Bridge); err != nil {
			return err
		}
	}
	return run("ip", "link", "set", Bridge, "up")
}

func (h *Host) boot(opts Options) error {
	l := h.lease
	dir, err := newName()
	if err != nil {
		return err
	}
	h.Name = filepath.Base(dir)
	l.Dir, l.Root = dir, filepath.Join(dir, "root")
	h.Dir, h.Root = l.Dir, l.Root
	if err := l.save(); err != nil {
		return err
	}
	for _, d := range []string{"upper", "work", "root"} {
		if err := os.MkdirAll(filepath.Join(l.Dir, d), 0o755); err != nil {
			return err
		}
	}
	image := ImageRoot(h.Kind)
	data := fmt.Sprintf("lowerdir=%s,upperdir=%s,workdir=%s", image, filepath.Join(l.Dir, "upper"), filepath.Join(l.Dir, "work"))
	if opts.Copy || syscall.Mount("overlay", l.Root, "overlay", 0, data) != nil {
		// No overlayfs here (or not on this file system): a full copy.
		os.Remove(l.Root)
		if out, err := exec.Command("cp", "-a", "--reflink=auto", image, l.Root).CombinedOutput(); err != nil {
			return fmt.Errorf("clone the %s image: %v: %s", h.Kind, err, out)
		}
	}
	if err := h.personalize(opts); err != nil {
		return err
	}
	if err := h.network(); err != nil {
		return err
	}
	return h.launch(opts)
}

// newName picks the name of a booting host, zaplab- and 8 random hex
// digits, by making its directory under CacheDir/hosts: the name is the
// host's once that directory is made. Its network namespace has the same
// name, its veth pair the same digits, and nothing of an earlier host's
// on the same address shares them.
func newName() (string, error) {
	parent := filepath.Join(CacheDir(), "hosts")
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	for range 10 {
		var b [4]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", err
		}
		dir := filepath.Join(parent, "zaplab-"+hex.EncodeToString(b[:]))
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("no free host name in %s", parent)
}

// personalize writes what makes the clone this host: its name, host key,
// authorized keys, apt sources and proxy.
func (h *Host) personalize(opts Options) error {
	r := h.Root
	write := func(name, text string, mode os.FileMode) error {
		p := filepath.Join(r, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, []byte(text), mode)
	}
	files := []struct {
		name, text string
	}{
		{"etc/hostname", h.Name + "\n"},
		{"etc/hosts", fmt.Sprintf("127.0.0.1\tlocalhost\n127.0.1.1\t%s\n%s\t%s\n::1\tlocalhost ip6-localhost ip6-loopback\n", h.Name, h.Addr, h.Name)},
		// No DNS reaches a host; apt goes through the cacher by address.
		{"etc/resolv.conf", "# a lab host has no DNS: apt reaches the mirror through the cacher\n"},
		{"etc/apt/sources.list", MachineSources().List(Suite)},
		{"etc/apt/apt.conf.d/01zaplab-proxy", fmt.Sprintf("Acquire::http::Proxy \"http://%s:%d\";\n", BridgeAddr, CacherPort)},
	}
	for _, f := range files {
		os.Remove(filepath.Join(r, f.name)) // a link in the image (resolv.conf) is replaced, not followed
		if err := write(f.name, f.text, 0o644); err != nil {
			return err
		}
	}
	key := filepath.Join(r, "etc/ssh/ssh_host_ed25519_key")
	os.Remove(key)
	os.Remove(key + ".pub")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", h.Name, "-f", key).CombinedOutput(); err != nil {
		return fmt.Errorf("ssh-keygen: %v: %s", err, out)
	}
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		return err
	}
	if f := strings.Fields(string(pub)); len(f) >= 2 {
		h.HostKey = f[0] + " " + f[1]
	}
	uid, gid, err := accountIDs(filepath.Join(r, "etc/passwd"), TestAccount)
	if err != nil {
		return err
	}
	for _, a := range []struct {
		home     string
		uid, gid int
	}{{"root", 0, 0}, {"home/" + TestAccount, uid, gid}} {
		dir := filepath.Join(r, a.home, ".ssh")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		keys := filepath.Join(dir, "authorized_keys")
		if err := os.WriteFile(keys, opts.AuthorizedKeys, 0o600); err != nil {
			return err
		}
		for _, p := range []string{dir, keys} {
			if err := os.Lchown(p, a.uid, a.gid); err != nil {
				return err
			}
		}
	}
	return nil
}

// accountIDs reads an account's uid and gid from a passwd file.
func accountIDs(passwd, name string) (int, int, error) {
	data, err := os.ReadFile(passwd)
	if err != nil {
		return 0, 0, err
	}
	for _, l := range strings.Split(string(data), "\n") {
		f := strings.Split(l, ":")
		if len(f) >= 4 && f[0] == name {
			uid, err1 := strconv.Atoi(f[2])
			gid, err2 := strconv.Atoi(f[3])
			if err1 == nil && err2 == nil {
				return uid, gid, nil
			}
		}
	}
	return 0, 0, fmt.Errorf("no account %s in %s", name, passwd)
}

// network makes the host's namespace and joins it to the bridge. Each name
// is recorded in the lease once ip has made what it names: ip fails
// rather than take over a namespace or link that is there already, so the
// lease never records, and a reap never deletes, what isn't the host's.
func (h *Host) network() error {
	l := h.lease
	netns := h.Name
	veth := "zl" + strings.TrimPrefix(h.Name, "zaplab-")
	// The peer is named in the host's namespace only after the move, but
	// it is made in the machine's: it gets one more letter.
	peer := veth + "g"
	if err := run("ip", "netns", "add", netns); err != nil {
		return err
	}
	l.Netns, h.Netns = netns, netns
	if err := l.save(); err != nil {
		return err
	}
	if err := run("ip", "link", "add", veth, "type", "veth", "peer", "name", peer); err != nil {
		return err
	}
	l.Veth, h.Veth = veth, veth
	if err := l.save(); err != nil {
		return err
	}
	for _, args := range [][]string{
		{"link", "set", veth, "master", Bridge, "up"},
		{"link", "set", peer, "netns", netns},
		{"-n", netns, "addr", "add", fmt.Sprintf("%s/%d", h.Addr, bridgePfx), "dev", peer},
		{"-n", netns, "link", "set", peer, "up"},
		{"-n", netns, "link", "set", "lo", "up"},
		// No default route: the host reaches the bridge's subnet and
		// nothing else, so a packet for anywhere else fails at once rather
		// than leaving through the machine without NAT.
	} {
		if err := run("ip", args...); err != nil {
			return err
		}
	}
	return nil
}

// launch boots the clone and waits for its sshd.
func (h *Host) launch(opts Options) error {
	l := h.lease
	var cmd *exec.Cmd
	switch h.Kind {
	case Systemd:
		args := []string{"-b", "--register=no", "--keep-unit", "--console=passive",
			"--network-namespace-path=/run/netns/" + l.Netns, "--capability=CAP_NET_ADMIN",
			"-D", l.Root, "-M", h.Name,
			// The host's own resolv.conf (no name server), not a copy of
			// the machine's, whose server it can't reach.
			"--resolv-conf=off"}
		cmd = exec.Command("systemd-nspawn", append(args, opts.NspawnArgs...)...)
		cmd.Env = append(os.Environ(), "SYSTEMD_NSPAWN_API_VFS_WRITABLE=network")
	case OpenRC:
		cmd = exec.Command("ip", "netns", "exec", l.Netns, "unshare", "--mount", "--uts", "--ipc", "--pid", "--cgroup", "--fork",
			"--propagation", "private", "sh", "-c", string(openrcBoot), "openrc-boot", l.Root, h.Name)
	default:
		return fmt.Errorf("unknown lab host kind %q", h.Kind)
	}
	console, err := os.Create(filepath.Join(l.Dir, "console.log"))
	if err != nil {
		return err
	}
	defer console.Close()
	cmd.Stdout, cmd.Stderr = console, console
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("boot the %s host: %w", h.Kind, err)
	}
	l.Launcher = proctree.Of(cmd.Process.Pid)
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	if err := l.save(); err != nil {
		return err
	}
	if err := h.awaitBoot(cmd.Process.Pid, exited); err != nil {
		return err
	}
	if h.Kind == Systemd {
		out, _ := h.Exec("timeout", "60", "systemctl", "is-system-running", "--wait")
		h.State = strings.TrimSpace(out)
	}
	return nil
}

// awaitBoot waits, up to 60 s, until the host whose launcher is the process
// launcher has a PID 1 (recorded in its lease) and then an sshd listening.
// A host that exits first (exited is closed) fails, as one that is late
// does, with its console's last lines.
func (h *Host) awaitBoot(launcher int, exited <-chan struct{}) error {
	l := h.lease
	failed := func(what string) error {
		data, _ := os.ReadFile(filepath.Join(l.Dir, "console.log"))
		return fmt.Errorf("the %s host %s: %s; its console:\n%s", h.Kind, what, h.Name, tail(string(data), 20))
	}
	// await asks ready every interval until it says the host is that far
	// on, until the deadline, unless the host exits first.
	deadline := time.Now().Add(60 * time.Second)
	await := func(interval time.Duration, late string, ready func() (bool, error)) error {
		for {
			if ok, err := ready(); ok || err != nil {
				return err
			}
			select {
			case <-exited:
				return failed("exited while booting")
			case <-time.After(interval):
			}
			if time.Now().After(deadline) {
				return failed(late)
			}
		}
	}
	err := await(20*time.Millisecond, "started no PID 1 within 60s", func() (bool, error) {
		if l.Init.PID != 0 {
			return true, nil
		}
		pid := namespaceInit(launcher)
		if pid <= 0 {
			return false, nil
		}
		l.Init = proctree.Of(pid)
		h.PID = pid
		return true, l.save()
	})
	if err != nil {
		return err
	}
	return await(50*time.Millisecond, "had no sshd listening within 60s", func() (bool, error) {
		c, err := net.DialTimeout("tcp", net.JoinHostPort(h.Addr, strconv.Itoa(h.Port)), time.Second)
		if err != nil {
			return false, nil
		}
		c.Close()
		return true, nil
	})
}

// namespaceInit finds, among pid and its descendants, the process that is
// PID 1 of a pid namespace below the machine's.
func namespaceInit(pid int) int {
	for _, p := range append([]int{pid}, proctree.Descendants(pid)...) {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			if rest, ok := strings.CutPrefix(line, "NSpid:"); ok {
				f := strings.Fields(rest)
				if len(f) >= 2 && f[len(f)-1] == "1" {
					return p
				}
			}
		}
	}
	return 0
}

// guestPath is the PATH a command in a host runs with.
const guestPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// ErrStopped is returned by Exec on a host that is no longer running.
var ErrStopped = errors.New("the lab host is not running")

// Command is args run as root inside the host (all its namespaces and its
// root, by nsenter), with a clean environment: PATH, HOME=/root, LC_ALL=C.
func (h *Host) Command(args ...string) *exec.Cmd {
	a := []string{"-t", strconv.Itoa(h.PID), "-a", "-r", "-w", "env", "-i",
		"PATH=" + guestPath, "HOME=/root", "LC_ALL=C", "TERM=dumb"}
	return exec.Command("nsenter", append(a, args...)...)
}

// Running reports whether the host's PID 1 is still the one it booted.
func (h *Host) Running() bool { return h.lease != nil && h.lease.Init.Alive() }

// Exec runs args in the host as root and returns its combined output; an
// error when it exits non-zero holds that output.
func (h *Host) Exec(args ...string) (string, error) {
	if !h.Running() {
		return "", ErrStopped
	}
	out, err := h.Command(args...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s on %s: %w: %s", strings.Join(args, " "), h.Name, err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}

// KnownHostsLine is the host's key as a known_hosts line.
func (h *Host) KnownHostsLine() string {
	if h.Port == 22 {
		return h.Addr + " " + h.HostKey
	}
	return fmt.Sprintf("[%s]:%d %s", h.Addr, h.Port, h.HostKey)
}

// Stop tears the host down by PID: its PID 1 killed (ending its pid
// namespace), its launcher waited for, its clone unmounted and removed,
// its namespace deleted, its lease released. When no lease is left, the
// cacher stops and the bridge goes. Stopping twice does nothing.
func (h *Host) Stop() error {
	l := h.lease
	if l == nil {
		return nil
	}
	h.lease = nil
	err := l.reap()
	unlock, lerr := lockFile(filepath.Join(RunDir(), "lock"))
	if lerr != nil {
		return errors.Join(err, lerr)
	}
	defer unlock()
	os.Remove(l.file())
	live := false
	for _, o := range readLeases() {
		if o.Owner.Alive() {
			live = true
		}
	}
	if !live {
		stopCacher()
		exec.Command("ip", "link", "del", Bridge).Run()
	}
	return err
}

// reap undoes what a lease records, by PID and by name.
func (l *lease) reap() error {
	l.Init.Kill()
	// Killing PID 1 ends the pid namespace; its launcher (nspawn,
	// unshare) then exits: wait for it a moment, then kill it.
	for i := 0; i < 100 && l.Launcher.Alive(); i++ {
		time.Sleep(20 * time.Millisecond)
	}
	l.Launcher.Kill()
	var errs []error
	if l.Root != "" {
		for i := 0; ; i++ {
			m, _ := mountsUnder(l.Root)
			if len(m) == 0 {
				break
			}
			if err := syscall.Unmount(l.Root, 0); err != nil && i >= 20 {
				syscall.Unmount(l.Root, syscall.MNT_DETACH)
			} else if err != nil {
				time.Sleep(50 * time.Millisecond)
			}
			if i > 40 {
				errs = append(errs, fmt.Errorf("unmount %s: still mounted", l.Root))
				break
			}
		}
	}
	if l.Dir != "" {
		if err := removeTree(l.Dir); err != nil {
			errs = append(errs, err)
		}
	}
	if l.Netns != "" {
		exec.Command("ip", "netns", "del", l.Netns).Run()
	}
	if l.Veth != "" {
		exec.Command("ip", "link", "del", l.Veth).Run()
	}
	return errors.Join(errs...)
}
