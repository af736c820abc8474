// Package lab boots real Debian hosts for the tests: a systemd host
// (systemd as PID 1 under systemd-nspawn) and an OpenRC host (openrc-init as
// PID 1 in a pid namespace), each a fresh clone of a cached image, in a
// network namespace of its own on a private bridge, with sshd inside taking
// key logins for root and the test account zaptest (NOPASSWD sudo), and apt
// reaching the mirror through an apt-cacher-ng on the bridge address.
//
// Images are built once per machine and cached under CacheDir, named by a
// hash of their recipe (mirror, suite, packages, the build scripts): a base
// image by debootstrap (minbase), and on a copy of it the systemd and OpenRC
// images. Builders in several test binaries at once take an exclusive flock
// on CacheDir/lock; the first builds, the others find the image done.
//
// A host is an overlayfs clone of its image (a cp -a copy where overlayfs
// can't be mounted), booted in a network namespace joined to the bridge
// zaplab0 (10.233.0.1/16) by a veth pair; its address comes from a lease
// under RunDir that records every PID, mount and namespace the host uses, so
// a host left behind by a killed test binary is torn down by the next one
// to start. Teardown is by PID: the guest's PID 1 is killed (which ends its
// pid namespace), its launcher waited for, the clone unmounted and removed,
// the namespace deleted. When the last lease goes, the cacher stops and the
// bridge is deleted.
//
// Several test binaries boot hosts at once. The bridge, the cacher and the
// leases are shared, changed only under an flock on RunDir/lock. What is a
// host's own has a name new at every boot, zaplab- and 8 random hex digits:
// its host name, clone directory and network namespace, and zl and the same
// digits its veth. An address is reused once its lease is gone; those names
// never are, so a teardown deletes only what its own host made, and a test
// can check that a torn-down host's namespace is gone while other hosts,
// on its old address among them, run.
//
// Nothing else of the machine's network is touched: no firewall rule, no
// NAT, no route but the one the bridge's address brings.
package lab

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Kind is the init system of a lab host.
type Kind string

// The lab's kinds of host.
const (
	Systemd Kind = "systemd"
	OpenRC  Kind = "openrc"
)

// Kinds are every kind of lab host, in the order they are built.
var Kinds = []Kind{Systemd, OpenRC}

// ParseKind reads a kind's name.
func ParseKind(s string) (Kind, error) {
	switch Kind(s) {
	case Systemd, OpenRC:
		return Kind(s), nil
	}
	return "", fmt.Errorf("unknown lab host kind %q (want systemd or openrc)", s)
}

// Suite is the Debian release the images are made of.
const Suite = "bookworm"

// The bridge every host joins, and its address: the machine's end, where
// the cacher listens.
const (
	Bridge      = "zaplab0"
	BridgeAddr  = "10.233.0.1"
	bridgePfx   = 16
	CacherPort  = 3149
	TestAccount = "zaptest"
)

// CacheDir is where images and the cacher's cache live across runs
// ($ZAP_LAB_CACHE, else /var/cache/zap-lab).
func CacheDir() string {
	if d := os.Getenv("ZAP_LAB_CACHE"); d != "" {
		return d
	}
	return "/var/cache/zap-lab"
}

// RunDir is where the leases of running hosts and the cacher's PID are
// kept ($ZAP_LAB_RUN, else /run/zap-lab).
func RunDir() string {
	if d := os.Getenv("ZAP_LAB_RUN"); d != "" {
		return d
	}
	return "/run/zap-lab"
}

// ErrUnavailable is wrapped by Available's error: the machine can't run
// that kind of host (not root, a tool missing).
var ErrUnavailable = errors.New("lab hosts unavailable")

// Available reports whether this machine can run hosts of kind, and when
// not, why (an error wrapping ErrUnavailable naming what is missing). It
// does not build anything.
func Available(kind Kind) error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("%w: not root", ErrUnavailable)
	}
	tools := []string{"debootstrap", "ip", "unshare", "nsenter", "mount", "chroot", "ssh-keygen"}
	if kind == Systemd {
		tools = append(tools, "systemd-nspawn")
	}
	var missing []string
	for _, t := range tools {
		if _, err := exec.LookPath(t); err != nil {
			missing = append(missing, t)
		}
	}
	if _, err := os.Stat(cacherBinary); err != nil {
		missing = append(missing, cacherBinary)
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: missing %s (apt-get install debootstrap systemd-container apt-cacher-ng iproute2 openssh-client)", ErrUnavailable, strings.Join(missing, ", "))
	}
	return nil
}

// Status is what the lab has done on this machine, for the tiers summary.
type Status struct {
	// Images are the kinds whose image is built and cached.
	Images []Kind
	// Boots counts the hosts booted of each kind since the count was last
	// reset (labctl build resets it; make test runs that first).
	Boots map[Kind]int
}

// ReadStatus reads the lab's status from CacheDir.
func ReadStatus() Status {
	st := Status{Boots: map[Kind]int{}}
	for _, k := range Kinds {
		if _, err := os.Stat(filepath.Join(imageDir(k), "root")); err == nil {
			st.Images = append(st.Images, k)
		}
	}
	data, _ := os.ReadFile(bootsFile())
	for _, l := range strings.Split(string(data), "\n") {
		if k, err := ParseKind(l); err == nil {
			st.Boots[k]++
		}
	}
	return st
}

// ResetBoots empties the boot count ReadStatus reports.
func ResetBoots() error {
	if err := os.MkdirAll(CacheDir(), 0o755); err != nil {
		return err
	}
	return os.WriteFile(bootsFile(), nil, 0o644)
}

func bootsFile() string { return filepath.Join(CacheDir(), "boots") }

func countBoot(kind Kind) {
	f, err := os.OpenFile(bootsFile(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	f.WriteString(string(kind) + "\n")
	f.Close()
}
