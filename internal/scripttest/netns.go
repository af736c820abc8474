package scripttest

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/zap-go/zap/internal/proctree"
)

// NetnsHost is the ~/.ssh/config alias `netns start` gives the sshd in the
// network namespace.
const NetnsHost = "zapnetns"

// netnsState is one script's network namespace and the sshd inside it.
type netnsState struct {
	name, veth string
	sshd       *sshdState
	claim      *subnetClaim
}

var netnss sync.Map // *testscript.TestScript -> *netnsState

// cmdNetns is the netns command:
//
//	netns start   a network namespace of the script's own, joined to the
//	              machine's by a veth pair on a private /30 (10.231.N.0,
//	              the machine's end .1, the namespace's .2; claimed under
//	              an flock, so no other script in any process has it while
//	              this one does), with a second
//	              sshd of the script's private one (`sshd start` first: same
//	              host key, accounts and sudo rule) listening on .2:22
//	              inside it, reachable only through the veth; ~/.ssh/config
//	              gets the alias zapnetns and known_hosts its key; sets
//	              NETNS_ADDR
//	netns stop    kill that sshd by PID, delete the namespace and the veth
//	              (done at the script's end anyway)
//
// Nothing else of the machine's network is touched: no firewall rule, no
// route but the one the veth's own address brings.
func cmdNetns(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: netns start|stop")
	}
	switch args[0] {
	case "start":
		if _, ok := netnss.Load(ts); ok {
			ts.Fatalf("netns: already started")
		}
		v, ok := sshds.Load(ts)
		if !ok {
			ts.Fatalf("netns: run sshd start first")
		}
		st, err := startNetns(ts, v.(*sshdState))
		ts.Check(err)
		netnss.Store(ts, st)
		ts.Defer(func() { st.stop(); netnss.Delete(ts) })
	case "stop":
		if v, ok := netnss.Load(ts); ok {
			v.(*netnsState).stop()
		}
	default:
		ts.Fatalf("usage: netns start|stop")
	}
}

// haveNetns reports whether a network namespace can be made: root, ip.
func haveNetns() bool {
	if !haveSSHD() {
		return false
	}
	_, err := exec.LookPath("ip")
	return err == nil
}

func ip(args ...string) error {
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

func startNetns(ts *testscript.TestScript, sshd *sshdState) (*netnsState, error) {
	// Names of the script's own, random, each recorded in st once ip has
	// made it (ip fails rather than take over one that is there), so stop
	// deletes only what the script made.
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	id := fmt.Sprintf("%x", b)
	name, veth := "zapns-"+id, "zv"+id
	if err := ip("netns", "add", name); err != nil {
		return nil, err
	}
	st := &netnsState{name: name}
	nsAddr, err := st.link(veth, int(b[0]))
	if err != nil {
		st.stop()
		return nil, err
	}
	log := filepath.Join(sshd.dir, "netns.log")
	if err := st.startSSHD(sshd.dir, nsAddr, log); err != nil {
		st.stop()
		return nil, err
	}
	hostPub, err := os.ReadFile(filepath.Join(sshd.dir, "host_ed25519.pub"))
	if err != nil {
		st.stop()
		return nil, err
	}
	sshDir := filepath.Join(ts.Getenv("HOME"), ".ssh")
	if err := appendFile(filepath.Join(sshDir, "config"), fmt.Sprintf("Host %s\n  HostName %s\n  Port 22\n", NetnsHost, nsAddr), false); err != nil {
		st.stop()
		return nil, err
	}
	if err := appendFile(filepath.Join(sshDir, "known_hosts"), nsAddr+" "+hostKeyOf(hostPub)+"\n", false); err != nil {
		st.stop()
		return nil, err
	}
	ts.Setenv("NETNS_ADDR", nsAddr)
	ts.Setenv("NETNS_LOG", log)
	return st, nil
}

// link joins the namespace to the machine's by the veth pair veth and
// veth+"p" (the namespace's end), on the first /30 from 10.231.first.0 on
// that claimSubnet gives, and brings both ends and the namespace's lo up.
// It returns the namespace's address; what it made is recorded in st.
func (st *netnsState) link(veth string, first int) (nsAddr string, err error) {
	peer := veth + "p"
	if err := ip("link", "add", veth, "type", "veth", "peer", "name", peer); err != nil {
		return "", err
	}
	st.veth = veth
	if err := ip("link", "set", peer, "netns", st.name); err != nil {
		return "", err
	}
	// A /30 of the script's own, claimed across processes.
	c, n, err := claimSubnet(st.name, st.veth, first)
	if err != nil {
		return "", err
	}
	st.claim = c
	hostAddr, nsAddr := fmt.Sprintf("10.231.%d.1", n), fmt.Sprintf("10.231.%d.2", n)
	if err := ip("addr", "add", hostAddr+"/30", "dev", st.veth); err != nil {
		return "", err
	}
	for _, args := range [][]string{
		{"netns", "exec", st.name, "ip", "addr", "add", nsAddr + "/30", "dev", peer},
		{"netns", "exec", st.name, "ip", "link", "set", peer, "up"},
		{"netns", "exec", st.name, "ip", "link", "set", "lo", "up"},
		{"link", "set", st.veth, "up"},
	} {
		if err := ip(args...); err != nil {
			return "", err
		}
	}
	return nsAddr, nil
}

// startSSHD starts in the namespace a second sshd of the one in dir (its
// config, host key and accounts), listening on nsAddr:22 and logging to
// log, and waits up to 10 s until it accepts a connection. It is recorded
// in st and in the claim; the caller stops st when it fails.
func (st *netnsState) startSSHD(dir, nsAddr, log string) error {
	cmd := exec.Command("ip", "netns", "exec", st.name, sshdBinary, "-D", "-f", filepath.Join(dir, "sshd_config"), "-E", log,
		"-o", "ListenAddress="+nsAddr, "-o", "Port=22", "-o", "PidFile="+filepath.Join(dir, "netns.pid"))
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start sshd in %s: %w", st.name, err)
	}
	st.sshd = &sshdState{cmd: cmd}
	// ip netns exec runs sshd in its own process: the claim records it, so
	// a process taking the claim over from a killed test binary stops it.
	st.claim.Sshd = proctree.Of(cmd.Process.Pid)
	if err := st.claim.save(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", net.JoinHostPort(nsAddr, "22"), time.Second)
		if err == nil {
			c.Close()
			break
		}
		select {
		case err := <-exited:
			out, _ := os.ReadFile(log)
			st.sshd.cmd = nil
			return fmt.Errorf("sshd in %s exited (%v): %s", st.name, err, out)
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("sshd in %s didn't listen within 10s", st.name)
		}
		time.Sleep(50 * time.Millisecond)
	}
	go func() { <-exited }()
	return nil
}

// appendFile appends text to name, which must be there unless create
// says to create it (mode 600).
func appendFile(name, text string, create bool) error {
	flag := os.O_WRONLY | os.O_APPEND
	if create {
		flag |= os.O_CREATE
	}
	f, err := os.OpenFile(name, flag, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// stop kills the namespace's sshd tree by PID, deletes the namespace and
// the veth pair, and then gives up the claim on their /30.
func (st *netnsState) stop() {
	if st.sshd != nil {
		st.sshd.killTree()
		st.sshd = nil
	}
	if st.veth != "" {
		exec.Command("ip", "link", "del", st.veth).Run()
		st.veth = ""
	}
	if st.name != "" {
		exec.Command("ip", "netns", "del", st.name).Run()
		st.name = ""
	}
	if st.claim != nil {
		os.Remove(st.claim.file)
		st.claim = nil
	}
}

// subnetClaim is a script's claim on 10.231.N.0/30, the file netns/N.json
// in runDir: its owner, the test binary, and what the script made there
// (the namespace, the veth and the sshd inside), recorded once made, so
// that whoever finds the owner dead deletes exactly that.
type subnetClaim struct {
	Owner proctree.Proc `json:"owner"`
	Netns string        `json:"netns"`
	Veth  string        `json:"veth"`
	Sshd  proctree.Proc `json:"sshd"`
	file  string
}

func (c *subnetClaim) save() error {
	data, err := json.Marshal(c)
	if err != nil {
		return err
	}
	tmp := c.file + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, c.file)
}

// claimSubnet claims the first /30 from 10.231.first.0 on (wrapping) that
// no live claim holds and no interface of the machine has an address in,
// for the namespace netns and the veth veth, which the caller has made.
// Claims are made under an flock, so two processes never claim the same
// /30; a claim whose owner is dead is taken over once what it records is
// deleted. Only its owner gives up a live claim (netnsState.stop).
func claimSubnet(netns, veth string, first int) (*subnetClaim, int, error) {
	dir := filepath.Join(runDir(), "netns")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, 0, err
	}
	unlock, err := lockRun("netns/lock")
	if err != nil {
		return nil, 0, err
	}
	defer unlock()
	used, _ := exec.Command("ip", "-4", "addr").Output()
	for i := range 256 {
		n := (first + i) % 256
		file := filepath.Join(dir, strconv.Itoa(n)+".json")
		if data, err := os.ReadFile(file); err == nil {
			var old subnetClaim
			if json.Unmarshal(data, &old) == nil && old.Owner.Alive() {
				continue
			}
			// Its owner was killed: what it made goes, then the claim.
			old.Sshd.Kill()
			if old.Veth != "" {
				exec.Command("ip", "link", "del", old.Veth).Run()
			}
			if old.Netns != "" {
				exec.Command("ip", "netns", "del", old.Netns).Run()
			}
			if err := os.Remove(file); err != nil {
				return nil, 0, err
			}
			used, _ = exec.Command("ip", "-4", "addr").Output()
		}
		// An address there without a claim is someone else's: a process
		// outside these claims.
		if strings.Contains(string(used), fmt.Sprintf("inet 10.231.%d.", n)) {
			continue
		}
		c := &subnetClaim{Owner: proctree.Self(), Netns: netns, Veth: veth, file: file}
		if err := c.save(); err != nil {
			return nil, 0, err
		}
		return c, n, nil
	}
	return nil, 0, errors.New("no free 10.231.N.0/30: every one is claimed or in use")
}
