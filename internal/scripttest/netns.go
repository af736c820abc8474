package scripttest

import (
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// NetnsHost is the ~/.ssh/config alias `netns start` gives the sshd in the
// network namespace.
const NetnsHost = "zapnetns"

// netnsState is one script's network namespace and the sshd inside it.
type netnsState struct {
	name, veth string
	sshd       *sshdState
}

var netnss sync.Map // *testscript.TestScript -> *netnsState

// cmdNetns is the netns command:
//
//	netns start   a network namespace of the script's own, joined to the
//	              machine's by a veth pair on a private /30 (10.231.N.0,
//	              the machine's end .1, the namespace's .2), with a second
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
	var b [3]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	id := fmt.Sprintf("%x", b)
	st := &netnsState{name: "zapns-" + id, veth: "zv" + id}
	if err := ip("netns", "add", st.name); err != nil {
		return nil, err
	}
	peer := st.veth + "p"
	var hostAddr, nsAddr string
	err := func() error {
		if err := ip("link", "add", st.veth, "type", "veth", "peer", "name", peer); err != nil {
			return err
		}
		if err := ip("link", "set", peer, "netns", st.name); err != nil {
			return err
		}
		// A /30 no interface of the machine has: try a few.
		used, _ := exec.Command("ip", "-4", "addr").Output()
		for n := int(b[0]); ; n++ {
			if n-int(b[0]) > 255 {
				return errors.New("no free 10.231.N.0/30")
			}
			hostAddr, nsAddr = fmt.Sprintf("10.231.%d.1", n%256), fmt.Sprintf("10.231.%d.2", n%256)
			if strings.Contains(string(used), fmt.Sprintf("10.231.%d.", n%256)) {
				continue
			}
			if err := ip("addr", "add", hostAddr+"/30", "dev", st.veth); err == nil {
				break
			}
		}
		for _, args := range [][]string{
			{"netns", "exec", st.name, "ip", "addr", "add", nsAddr + "/30", "dev", peer},
			{"netns", "exec", st.name, "ip", "link", "set", peer, "up"},
			{"netns", "exec", st.name, "ip", "link", "set", "lo", "up"},
			{"link", "set", st.veth, "up"},
		} {
			if err := ip(args...); err != nil {
				return err
			}
		}
		return nil
	}()
	if err != nil {
		st.stop()
		return nil, err
	}

	log := filepath.Join(sshd.dir, "netns.log")
	cmd := exec.Command("ip", "netns", "exec", st.name, sshdBinary, "-D", "-f", filepath.Join(sshd.dir, "sshd_config"), "-E", log,
		"-o", "ListenAddress="+nsAddr, "-o", "Port=22", "-o", "PidFile="+filepath.Join(sshd.dir, "netns.pid"))
	if err := cmd.Start(); err != nil {
		st.stop()
		return nil, fmt.Errorf("start sshd in %s: %w", st.name, err)
	}
	st.sshd = &sshdState{cmd: cmd}
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
			st.stop()
			return nil, fmt.Errorf("sshd in %s exited (%v): %s", st.name, err, out)
		default:
		}
		if time.Now().After(deadline) {
			st.stop()
			return nil, fmt.Errorf("sshd in %s didn't listen within 10s", st.name)
		}
		time.Sleep(50 * time.Millisecond)
	}
	go func() { <-exited }()

	home := ts.Getenv("HOME")
	sshDir := filepath.Join(home, ".ssh")
	hostPub, err := os.ReadFile(filepath.Join(sshd.dir, "host_ed25519.pub"))
	if err != nil {
		st.stop()
		return nil, err
	}
	key := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(string(hostPub)), "zaptest"))
	if err := appendFile(filepath.Join(sshDir, "config"), fmt.Sprintf("Host %s\n  HostName %s\n  Port 22\n", NetnsHost, nsAddr)); err != nil {
		st.stop()
		return nil, err
	}
	if err := appendFile(filepath.Join(sshDir, "known_hosts"), nsAddr+" "+key+"\n"); err != nil {
		st.stop()
		return nil, err
	}
	ts.Setenv("NETNS_ADDR", nsAddr)
	ts.Setenv("NETNS_LOG", log)
	return st, nil
}

func appendFile(name, text string) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// stop kills the namespace's sshd tree by PID and deletes the namespace and
// the veth pair.
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
}
