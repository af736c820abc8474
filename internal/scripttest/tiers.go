package scripttest

import (
	"fmt"
	"io"
	"os"
	"os/exec"
)

// Tier is one class of test target and whether this machine runs it.
type Tier struct {
	Name string
	Runs bool
	// Why says what is missing when it doesn't run, or what it runs as.
	Why string
}

// Tiers lists the test tiers and, for each, whether the suite runs it here:
// the same conditions the scripts' guards ([root], [sshd], [netns]) and the
// tests' skips read. make test prints one line per tier after the tests.
func Tiers() []Tier {
	root := os.Geteuid() == 0
	_, busybox := exec.LookPath("busybox")
	_, minisign := exec.LookPath("minisign")
	tiers := []Tier{
		{Name: "local target in a temporary HOME", Runs: true},
		{Name: "an unprivileged account racing or reading", Runs: root, Why: "not root: runas and the adversarial write tests need root to act as " + TestAccount},
		{Name: "operation scripts under BusyBox", Runs: busybox == nil, Why: "no busybox on PATH (apt-get install busybox)"},
		{Name: "build sources verified by minisign", Runs: minisign == nil, Why: "no minisign on PATH (apt-get install minisign)"},
		{Name: "private sshd on 127.0.0.1", Runs: haveSSHD(), Why: "needs root, /usr/sbin/sshd, ssh, ssh-keygen and sudo"},
		{Name: "sshd in a network namespace", Runs: haveNetns(), Why: "needs what the sshd tier needs, and ip (iproute2)"},
		labTier(),
	}
	for i := range tiers {
		if tiers[i].Runs {
			tiers[i].Why = ""
		}
	}
	if root {
		tiers[1].Why = "as " + TestAccount
	}
	for i := range tiers {
		if tiers[i].Name == labTierName && tiers[i].Runs {
			tiers[i].Why = labRan()
		}
	}
	return tiers
}

// WriteTiers writes one line per tier to w: whether this machine runs it
// and, when it doesn't, why. These lines say what the machine has; which
// tests skipped, and why, make test prints after them
// (internal/scripttest/testreport).
func WriteTiers(w io.Writer) {
	for _, t := range Tiers() {
		state := "runs"
		if !t.Runs {
			state = "skipped"
		}
		if t.Why != "" {
			fmt.Fprintf(w, "tier: %-44s %s (%s)\n", t.Name, state, t.Why)
		} else {
			fmt.Fprintf(w, "tier: %-44s %s\n", t.Name, state)
		}
	}
}
