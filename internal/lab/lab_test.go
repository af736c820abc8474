package lab_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/zap-go/zap/internal/lab"
	"github.com/zap-go/zap/internal/proctree"
	"github.com/zap-go/zap/internal/scripttest"
)

func TestMain(m *testing.M) {
	if os.Getenv("ZAP_LAB_ORPHAN") != "" {
		orphan()
		return
	}
	scripttest.Main(m)
}

// orphan is the test binary run as a child by TestReapOrphan: it boots a
// host, says where it is, and waits to be killed, never stopping it.
func orphan() {
	_, pub, err := lab.NewIdentity(os.TempDir())
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	h, err := lab.Boot(lab.Options{Kind: lab.Kind(os.Getenv("ZAP_LAB_ORPHAN")), AuthorizedKeys: pub})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Printf("%s %s %s %d %s\n", h.Dir, h.Netns, h.Veth, h.PID, proctree.Of(h.PID).Start)
	time.Sleep(time.Minute)
	os.Exit(1)
}

// TestScripts runs testdata/script: each lab host boots, takes zap's SSH
// client, answers its init system and installs through the cacher.
func TestScripts(t *testing.T) {
	testscript.Run(t, scripttest.Params("testdata/script"))
}

// TestStartExec boots each kind through the Go API: Exec runs as root in
// the host's own namespaces, and Stop leaves nothing behind.
func TestStartExec(t *testing.T) {
	for _, kind := range lab.Kinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			h := lab.Start(t, kind)
			out, err := h.Exec("cat", "/proc/1/comm")
			if err != nil {
				t.Fatal(err)
			}
			want := map[lab.Kind]string{lab.Systemd: "systemd", lab.OpenRC: "openrc-init"}[kind]
			if got := strings.TrimSpace(out); got != want {
				t.Errorf("PID 1 is %q, want %q", got, want)
			}
			if out, err := h.Exec("hostname"); err != nil || strings.TrimSpace(out) != h.Name {
				t.Errorf("hostname = %q (%v), want %q", out, err, h.Name)
			}
			if out, err := h.Exec("id", "-un"); err != nil || strings.TrimSpace(out) != "root" {
				t.Errorf("id -un = %q (%v), want root", out, err)
			}
			if kind == lab.Systemd && h.State != "running" {
				t.Errorf("systemd's state at boot = %q, want running", h.State)
			}
			// Its PID 1 is in a cgroup namespace of its own, where no new
			// hierarchy can be made in the machine's kernel, and an OpenRC
			// host mounts no cgroups (its hierarchies came and went with it,
			// and a systemd host booting beside it failed on one).
			ours, err := os.Readlink("/proc/self/ns/cgroup")
			if err != nil {
				t.Fatal(err)
			}
			if out, err := h.Exec("readlink", "/proc/1/ns/cgroup"); err != nil || strings.TrimSpace(out) == ours {
				t.Errorf("the host's cgroup namespace = %q (%v), want one other than the machine's %q", out, err, ours)
			}
			if kind == lab.OpenRC {
				if out, err := h.Exec("sh", "-c", "grep -E ' - cgroup2? ' /proc/1/mountinfo || true"); err != nil || out != "" {
					t.Errorf("the OpenRC host mounted cgroups (%v):\n%s", err, out)
				}
			}
			if _, err := h.Exec("false"); err == nil {
				t.Error("a command exiting 1 gave no error")
			}
			dir, netns, veth := h.Dir, h.Netns, h.Veth
			if err := h.Stop(); err != nil {
				t.Fatal(err)
			}
			if _, err := h.Exec("true"); err != lab.ErrStopped {
				t.Errorf("Exec after Stop: %v, want ErrStopped", err)
			}
			leftBehind(t, "", dir, netns, veth)
		})
	}
}

// TestReapOrphan kills a test binary holding a host (it never stops it):
// the next host to start tears the orphan down by what its lease recorded,
// so its PID 1, clone, namespace and veth are gone. Every one of those
// names is new at each boot, so none is the new host's (nor any other
// test binary's running beside this one), even when the new host takes
// the orphan's address: each check is that the orphan's own is gone.
func TestReapOrphan(t *testing.T) {
	if err := lab.Available(lab.OpenRC); err != nil {
		t.Skipf("no OpenRC lab host: %v", err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	child := exec.Command(exe)
	child.Env = append(os.Environ(), "ZAP_LAB_ORPHAN=openrc", "TMPDIR="+t.TempDir())
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	var dir, netns, veth string
	var init proctree.Proc
	if _, err := fmt.Sscanf(line, "%s %s %s %d %s", &dir, &netns, &veth, &init.PID, &init.Start); err != nil {
		child.Process.Kill()
		child.Wait()
		t.Fatalf("the orphan said %q", line)
	}
	child.Process.Signal(syscall.SIGKILL)
	child.Wait()
	if !init.Alive() {
		t.Fatalf("the orphan's host PID 1 went with its owner")
	}

	h := lab.Start(t, lab.OpenRC)
	if h.Dir == dir || h.Netns == netns || h.Veth == veth {
		t.Fatalf("the new host has a name of the orphan's: %s %s %s, the orphan's %s %s %s", h.Dir, h.Netns, h.Veth, dir, netns, veth)
	}
	if init.Alive() {
		t.Errorf("the orphan's PID 1 %d still runs", init.PID)
	}
	leftBehind(t, "the orphan's ", dir, netns, veth)
}

// leftBehind fails t for each of a host's clone directory, network
// namespace and veth that is still there.
func leftBehind(t *testing.T, whose, dir, netns, veth string) {
	t.Helper()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%sclone %s is still there (%v)", whose, dir, err)
	}
	if _, err := os.Stat("/run/netns/" + netns); !os.IsNotExist(err) {
		t.Errorf("%snamespace %s is still there (%v)", whose, netns, err)
	}
	if out, err := exec.Command("ip", "link", "show", veth).CombinedOutput(); err == nil {
		t.Errorf("%sveth %s is still there: %s", whose, veth, out)
	}
}

// TestCopyClone boots a host cloned by cp -a, as where overlayfs can't be
// mounted: it boots the same, its root is no mount, and Stop removes it.
func TestCopyClone(t *testing.T) {
	if err := lab.Available(lab.OpenRC); err != nil {
		t.Skipf("no OpenRC lab host: %v", err)
	}
	_, pub, err := lab.NewIdentity(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h, err := lab.Boot(lab.Options{Kind: lab.OpenRC, AuthorizedKeys: pub, Copy: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Stop()
	mounts, _ := os.ReadFile("/proc/self/mountinfo")
	if strings.Contains(string(mounts), " "+h.Root+" ") {
		t.Errorf("the copied clone %s is a mount", h.Root)
	}
	if out, err := h.Exec("rc-status", "--runlevel"); err != nil || strings.TrimSpace(out) != "default" {
		t.Errorf("rc-status --runlevel = %q (%v), want default", out, err)
	}
	root := h.Root
	if err := h.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Errorf("the copied clone %s is still there (%v)", root, err)
	}
}
