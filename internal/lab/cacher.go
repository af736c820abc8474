package lab

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/zap-go/zap/internal/proctree"
)

// cacherBinary is apt-cacher-ng, which the hosts' apt reaches the mirror
// through: no host has a route or a name server to reach it itself.
const cacherBinary = "/usr/sbin/apt-cacher-ng"

// cacherConf is its whole configuration: listening on the bridge address
// only, and with no Remap lines (the stock ones send the Debian archive to
// a mirror list that isn't reachable here, answering 503), so a request is
// fetched from the archive it names.
const cacherConf = `CacheDir: %s
LogDir: %s
Port: %d
BindAddress: %s
ExThreshold: 4
`

func cacherState() string { return filepath.Join(RunDir(), "cacher.json") }

func cacherAddr() string { return net.JoinHostPort(BridgeAddr, strconv.Itoa(CacherPort)) }

// ensureCacher starts the cacher unless the one recorded still runs and
// answers. The caller holds the run lock and has made the bridge.
func ensureCacher() error {
	var p proctree.Proc
	if data, err := os.ReadFile(cacherState()); err == nil && json.Unmarshal(data, &p) == nil && p.Alive() {
		if c, err := net.DialTimeout("tcp", cacherAddr(), time.Second); err == nil {
			c.Close()
			return nil
		}
		// Wedged: a new one takes its port once it is gone.
		killWait(p)
	}
	base := filepath.Join(CacheDir(), "cacher")
	conf := filepath.Join(base, "conf")
	cache := filepath.Join(base, "cache")
	logs := filepath.Join(RunDir(), "cacher-log")
	for _, d := range []string{conf, cache, logs} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(conf, "acng.conf"), fmt.Appendf(nil, cacherConf, cache, logs, CacherPort, BridgeAddr), 0o644); err != nil {
		return err
	}
	out, err := os.Create(filepath.Join(logs, "stdout"))
	if err != nil {
		return err
	}
	defer out.Close()
	cmd := exec.Command(cacherBinary, "-c", conf, "ForeGround=1")
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start apt-cacher-ng: %w", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	p = proctree.Of(cmd.Process.Pid)
	data, _ := json.Marshal(p)
	if err := os.WriteFile(cacherState(), data, 0o644); err != nil {
		p.Kill()
		return err
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", cacherAddr(), time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-exited:
			log, _ := os.ReadFile(filepath.Join(logs, "stdout"))
			return fmt.Errorf("apt-cacher-ng exited at start: %s", tail(string(log), 10))
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.Kill()
			return fmt.Errorf("apt-cacher-ng didn't listen on %s within 10s", cacherAddr())
		}
	}
}

// stopCacher kills the recorded cacher by PID and waits until it is gone,
// so the next ensureCacher can listen on its port. The caller holds the
// run lock.
func stopCacher() {
	var p proctree.Proc
	if data, err := os.ReadFile(cacherState()); err == nil && json.Unmarshal(data, &p) == nil {
		killWait(p)
	}
	os.Remove(cacherState())
}

// killWait kills p by PID and waits, up to 5s, until it has exited (its
// sockets are closed by then, though its parent may not have reaped it).
func killWait(p proctree.Proc) {
	p.Kill()
	for i := 0; i < 250 && p.Alive(); i++ {
		time.Sleep(20 * time.Millisecond)
	}
}
