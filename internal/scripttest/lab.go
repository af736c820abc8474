package scripttest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/zap-go/zap/internal/lab"
)

// LabHost is the ~/.ssh/config alias `lab start` gives the lab host.
const LabHost = "zaplab"

var labs sync.Map // *testscript.TestScript -> []*lab.Host

// haveLab is the condition [lab:systemd] / [lab:openrc]: the machine can
// run that kind of lab host (root, debootstrap, systemd-nspawn for
// systemd, apt-cacher-ng, ip, nsenter...).
func haveLab(kind string) (bool, error) {
	k, err := lab.ParseKind(kind)
	if err != nil {
		return false, err
	}
	return lab.Available(k) == nil, nil
}

// cmdLab is the lab command (internal/lab boots the hosts):
//
//	lab start systemd|openrc
//	    boots a fresh lab host of that kind for the script (its image built
//	    first when not cached), with key login for root and zaptest
//	    (NOPASSWD sudo) with the identity ~/.ssh/id_ed25519 (the one `sshd
//	    start` made, else a new one); adds the alias zaplab (User root) to
//	    ~/.ssh/config and its key to known_hosts, puts the ssh that reads
//	    that config first on PATH, and sets LAB_HOST (its address),
//	    LAB_PORT, LAB_KIND, LAB_NAME (its host name) and LAB_ROOT (its root
//	    file system as the machine sees it). Run `sshd start` first when
//	    the script wants both: sshd start rewrites ~/.ssh/config.
//	lab start KIND:ALIAS KIND:ALIAS...
//	    boots one host per argument, all at once, each reached by its own
//	    ALIAS in ~/.ssh/config (User root); LAB_* describe the first. A
//	    boot that fails stops the hosts the others booted.
//	lab exec [-code N] [-stdin FILE] CMD [ARGS...]
//	    runs CMD in the (first) host as root (nsenter into its namespaces)
//	    and asserts its exit status is N (default 0); its stdout and stderr
//	    are what the next stdout and stderr commands match
//	lab stop
//	    tears the hosts down by PID (done at the script's end anyway)
func cmdLab(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("lab: use lab exec -code N rather than !")
	}
	if len(args) == 0 {
		ts.Fatalf("usage: lab start systemd|openrc | lab exec [-code N] [-stdin FILE] CMD [ARGS...] | lab stop")
	}
	switch args[0] {
	case "start":
		if len(args) < 2 {
			ts.Fatalf("usage: lab start systemd|openrc | lab start KIND:ALIAS...")
		}
		if _, ok := labs.Load(ts); ok {
			ts.Fatalf("lab: already started")
		}
		hosts, err := startLabs(ts, args[1:])
		ts.Check(err)
		labs.Store(ts, hosts)
		ts.Defer(func() {
			stopLabs(ts, hosts)
			labs.Delete(ts)
		})
	case "exec":
		v, ok := labs.Load(ts)
		if !ok {
			ts.Fatalf("lab: run lab start first")
		}
		labExec(ts, v.([]*lab.Host)[0], args[1:])
	case "stop":
		if v, ok := labs.Load(ts); ok {
			for _, h := range v.([]*lab.Host) {
				ts.Check(h.Stop())
			}
		}
	default:
		ts.Fatalf("usage: lab start systemd|openrc | lab exec [-code N] [-stdin FILE] CMD [ARGS...] | lab stop")
	}
}

// startLabs boots a host for each of specs (KIND, or KIND:ALIAS each),
// at once, and makes each reachable by its alias.
func startLabs(ts *testscript.TestScript, specs []string) ([]*lab.Host, error) {
	kinds, aliases := make([]lab.Kind, len(specs)), make([]string, len(specs))
	for i, spec := range specs {
		k, alias, named := strings.Cut(spec, ":")
		if !named && len(specs) > 1 || named && alias == "" {
			ts.Fatalf("usage: lab start systemd|openrc | lab start KIND:ALIAS...")
		}
		kind, err := lab.ParseKind(k)
		ts.Check(err)
		if err := lab.Available(kind); err != nil {
			ts.Fatalf("lab: %v; guard the script with [!lab:%s] skip", err, kind)
		}
		kinds[i], aliases[i] = kind, LabHost
		if named {
			aliases[i] = alias
		}
	}
	sshDir := filepath.Join(ts.Getenv("HOME"), ".ssh")
	if err := os.MkdirAll(sshDir, 0o700); err != nil {
		return nil, err
	}
	identity := filepath.Join(sshDir, "id_ed25519")
	if _, err := os.Stat(identity); err != nil {
		if _, _, err := lab.NewIdentity(sshDir); err != nil {
			return nil, err
		}
	}
	pub, err := os.ReadFile(identity + ".pub")
	if err != nil {
		return nil, err
	}
	hosts, errs := make([]*lab.Host, len(specs)), make([]error, len(specs))
	var wg sync.WaitGroup
	for i := range specs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hosts[i], errs[i] = lab.Boot(lab.Options{Kind: kinds[i], AuthorizedKeys: pub})
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		stopLabs(ts, hosts)
		return nil, err
	}
	for i, h := range hosts {
		h.Identity = identity
		if err := reachLab(ts, h, aliases[i], sshDir); err != nil {
			stopLabs(ts, hosts)
			return nil, err
		}
	}
	h := hosts[0]
	ts.Setenv("LAB_HOST", h.Addr)
	ts.Setenv("LAB_PORT", strconv.Itoa(h.Port))
	ts.Setenv("LAB_KIND", string(h.Kind))
	ts.Setenv("LAB_NAME", h.Name)
	ts.Setenv("LAB_ROOT", h.Root)
	return hosts, nil
}

// stopLabs tears down each host that booted.
func stopLabs(ts *testscript.TestScript, hosts []*lab.Host) {
	for _, h := range hosts {
		if h == nil {
			continue
		}
		if err := h.Stop(); err != nil {
			ts.Logf("lab: stop %s: %v", h.Name, err)
		}
	}
}

// reachLab adds h to ~/.ssh/config as alias and its key to known_hosts,
// and puts the ssh that reads that config first on PATH.
func reachLab(ts *testscript.TestScript, h *lab.Host, alias, sshDir string) error {
	work := ts.Getenv("WORK")
	identity := h.Identity
	known := filepath.Join(sshDir, "known_hosts")
	// User root: a target that names no user logs in as root, whoever
	// runs zap (runas runs it as zaptest, whose name ssh would take).
	block := fmt.Sprintf("Host %s\n  HostName %s\n  Port %d\n  User root\n  IdentityFile %s\n  UserKnownHostsFile %s\n  GlobalKnownHostsFile /dev/null\n",
		alias, h.Addr, h.Port, identity, known)
	for _, f := range []struct{ name, text string }{
		{filepath.Join(sshDir, "config"), block},
		{known, h.KnownHostsLine() + "\n"},
	} {
		if err := appendFile(f.name, f.text, true); err != nil {
			return err
		}
	}
	// zap reads the alias through `ssh -G`, which reads the account's own
	// ~/.ssh/config unless told: the same wrapper sshd start puts first.
	bin := filepath.Join(work, "sshbin")
	if _, err := os.Stat(filepath.Join(bin, "ssh")); err != nil {
		if err := installSSH(bin, sshDir); err != nil {
			return err
		}
	}
	if path := ts.Getenv("PATH"); !strings.HasPrefix(path, bin+string(filepath.ListSeparator)) {
		ts.Setenv("PATH", bin+string(filepath.ListSeparator)+path)
	}
	return nil
}

func labExec(ts *testscript.TestScript, h *lab.Host, args []string) {
	opts, args := runFlags(ts, "lab exec", args)
	if !h.Running() {
		ts.Fatalf("lab exec: %v", lab.ErrStopped)
	}
	opts.runChecked(ts, h.Command(args...), "lab exec", args[0], " in the lab host")
}

// labTierName is the lab's line in Tiers.
const labTierName = "lab hosts (systemd, OpenRC)"

// labTier is whether this machine runs lab hosts and, when not, why.
func labTier() Tier {
	for _, k := range lab.Kinds {
		if err := lab.Available(k); err != nil {
			return Tier{Name: labTierName, Why: fmt.Sprintf("%s: %v", k, err)}
		}
	}
	return Tier{Name: labTierName, Runs: true}
}

// labRan says what the lab tier ran: the hosts booted of each kind since
// make lab (labctl build) reset the count, and where the images are.
func labRan() string {
	st := lab.ReadStatus()
	return fmt.Sprintf("%d systemd and %d OpenRC hosts booted; images in %s", st.Boots[lab.Systemd], st.Boots[lab.OpenRC], lab.CacheDir())
}
