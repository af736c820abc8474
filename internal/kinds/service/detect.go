package service

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// systemdNotEnabled are the words systemctl is-enabled prints, exiting
// non-zero, for a unit that is not enabled. Any other non-zero exit holds.
var systemdNotEnabled = []string{"disabled", "masked", "masked-runtime", "linked", "linked-runtime", "not-found"}

// word is what a state systemctl prints may look like to be shown as the
// observed value: one lowercase word. Anything else is shown as a fixed
// phrase, never as the target's bytes.
var word = regexp.MustCompile(`^[a-z][a-z-]{0,31}$`)

// Service detects a service through its manager's two probes, both run as
// the login user: whether it is enabled at boot and, when running is
// managed, whether it is running.
//
// systemd: systemctl is-enabled and systemctl is-active. OpenRC: an entry
// for the service in any runlevel under /etc/runlevels (what rc-update add
// <svc> <runlevel> makes) and rc-service <svc> status.
type Service struct {
	Manager string
	Name    string
	// Enabled is the declared boot state (default true).
	Enabled bool
	// Running is the declared runtime state; nil leaves it unmanaged and
	// unread.
	Running *bool
}

func NewService(s *declaration.Service, env detect.Env) detect.Detector {
	switch env.ServiceManager {
	case vocab.ManagerSystemd, vocab.ManagerOpenRC:
	case "":
		return detect.Held("the target declares no service_manager (systemd or openrc), and Zap doesn't guess one")
	default:
		return detect.Held(fmt.Sprintf("this zap has no %s backend: its services can't be read", env.ServiceManager))
	}
	out := &Service{Manager: env.ServiceManager, Name: s.Service, Enabled: true, Running: s.Running}
	if s.Enabled != nil {
		out.Enabled = *s.Enabled
	}
	return out
}

// The probes' texts. The name is one word of a letter or digit, then
// letters, digits and _ . @ : - (the structural check), so it can't read
// as an option; it is quoted all the same.

// SystemdEnabledProbe is systemctl is-enabled for name. A systemctl older
// than the one that prints not-found for a unit with no unit file (Debian
// 12's 252 prints nothing on stdout and exits 1) is asked the unit's
// LoadState, and the probe prints not-found when systemd says so: the exit
// status stays is-enabled's own.
func SystemdEnabledProbe(name string) string {
	return strings.ReplaceAll(systemdEnabled, "NAME", vocab.Quote(name))
}

const systemdEnabled = `out=$(systemctl is-enabled -- NAME)
code=$?
if [ "$code" -ne 0 ] && [ -z "$out" ] && [ "$(systemctl show -p LoadState --value -- NAME)" = not-found ]; then
	out=not-found
fi
[ -z "$out" ] || printf '%s\n' "$out"
exit "$code"`

// SystemdActiveProbe is systemctl is-active for name.
func SystemdActiveProbe(name string) string { return "systemctl is-active -- " + vocab.Quote(name) }

// OpenRCEnabledProbe looks for an entry for name in any runlevel under
// /etc/runlevels: it prints the runlevels it is in and exits 0, exits 1
// when it is in none, and 2 when there is no /etc/runlevels directory to
// read (which holds).
func OpenRCEnabledProbe(name string) string {
	return "[ -d /etc/runlevels ] || exit 2\n" +
		"found=1\n" +
		"for f in /etc/runlevels/*/" + vocab.Quote(name) + "; do\n" +
		"\tif [ -e \"$f\" ] || [ -L \"$f\" ]; then\n" +
		"\t\tf=${f%/*}; printf '%s\\n' \"${f##*/}\"; found=0\n" +
		"\tfi\n" +
		"done\n" +
		"exit $found"
}

// OpenRCStatusProbe is rc-service <name> status. An rc-service that exits
// 1 for a service with no script (OpenRC 0.45 does: "does not exist") is
// read as 3, no such script, when neither /etc/init.d nor
// /usr/local/etc/init.d holds one; any other exit is rc-service's own.
//
// rc-service lives in an sbin directory (/sbin on Alpine, /usr/sbin on
// Debian), which a login user's PATH other than root's doesn't hold on
// Debian, so the probe looks there after the login user's own PATH.
func OpenRCStatusProbe(name string) string {
	return strings.ReplaceAll(openrcStatus, "NAME", vocab.Quote(name))
}

const openrcStatus = `PATH=${PATH:-/usr/bin:/bin}:/usr/local/sbin:/usr/sbin:/sbin
rc-service NAME status
code=$?
if [ "$code" -eq 1 ]; then
	for d in /etc/init.d /usr/local/etc/init.d; do
		if [ -e "$d"/NAME ] || [ -L "$d"/NAME ]; then exit 1; fi
	done
	exit 3
fi
exit "$code"`

// Queries: the enabled probe, then the running probe when running is
// managed.
func (s *Service) Queries() []detect.Query {
	var enabled, running string
	switch s.Manager {
	case vocab.ManagerSystemd:
		enabled, running = SystemdEnabledProbe(s.Name), SystemdActiveProbe(s.Name)
	default:
		enabled, running = OpenRCEnabledProbe(s.Name), OpenRCStatusProbe(s.Name)
	}
	qs := []detect.Query{detect.NewProbe(observation.LaneLogin, enabled)}
	if s.Running != nil {
		qs = append(qs, detect.NewProbe(observation.LaneLogin, running))
	}
	return qs
}

// Verdict maps each probe's exit status as detection.md says; any other
// exit, and a probe that gave none, holds the service. A service that reads
// as declared is converged; otherwise it is drifted, with enabled and
// running each a difference (observed → desired).
func (s *Service) Verdict(a []detect.Answer) detect.Result {
	if len(a) != len(s.Queries()) {
		return detect.Holding(fmt.Sprintf("%d answers for the service's %d reads", len(a), len(s.Queries())))
	}
	var drift []observation.Difference
	enabled, shown, reason := s.enabled(a[0])
	if reason != "" {
		return detect.Holding(reason)
	}
	if enabled != s.Enabled {
		drift = append(drift, observation.Difference{Field: FieldEnabled, Observed: shown, Desired: onOff(s.Enabled, StateEnabled, StateDisabled)})
	}
	if s.Running != nil {
		running, shown, reason := s.running(a[1])
		if reason != "" {
			return detect.Holding(reason)
		}
		if running != *s.Running {
			drift = append(drift, observation.Difference{Field: FieldRunning, Observed: shown, Desired: onOff(*s.Running, StateRunning, StateStopped)})
		}
	}
	if len(drift) > 0 {
		return detect.Drifted(drift)
	}
	return detect.Converged()
}

func onOff(b bool, on, off string) string {
	if b {
		return on
	}
	return off
}

// command is how a reason names the probe of a.
func (s *Service) command(enabled bool) string {
	switch {
	case s.Manager == vocab.ManagerSystemd && enabled:
		return "systemctl is-enabled " + s.Name
	case s.Manager == vocab.ManagerSystemd:
		return "systemctl is-active " + s.Name
	case enabled:
		return "the read of /etc/runlevels for " + s.Name
	}
	return "rc-service " + s.Name + " status"
}

// exited returns a probe's exit status, or a reason it gave none.
func (s *Service) exited(a detect.Answer, enabled bool) (int, string) {
	what := s.command(enabled)
	switch a.Status {
	case detect.StatusOK:
		return a.Exit, ""
	case detect.StatusFailed:
		if a.Detail != "" {
			return 0, what + " gave no exit status: " + a.Detail
		}
		return 0, what + " gave no exit status"
	}
	return 0, detect.Problem(a, what, vocab.ProbeTimeout)
}

// enabled reads the enabled probe: whether the service is enabled, how the
// observed state is shown, or a reason to hold.
func (s *Service) enabled(a detect.Answer) (bool, string, string) {
	code, reason := s.exited(a, true)
	if reason != "" {
		return false, "", reason
	}
	what := s.command(true)
	if s.Manager == vocab.ManagerSystemd {
		printed := strings.TrimSpace(a.Output)
		if code == 0 {
			return true, StateEnabled, ""
		}
		for _, w := range systemdNotEnabled {
			if printed == w {
				return false, w, ""
			}
		}
		return false, "", fmt.Sprintf("%s exited %d without saying the unit is disabled, masked, linked or not found: Zap can't tell whether it is enabled", what, code)
	}
	switch code {
	case 0:
		return true, StateEnabled, ""
	case 1:
		return false, StateDisabled, ""
	case 2:
		return false, "", "/etc/runlevels is not a directory: Zap can't tell whether " + s.Name + " is enabled (is this an OpenRC host?)"
	}
	return false, "", fmt.Sprintf("%s exited %d: Zap can't tell whether it is enabled", what, code)
}

// running reads the running probe: whether the service runs, how the
// observed state is shown, or a reason to hold.
func (s *Service) running(a detect.Answer) (bool, string, string) {
	code, reason := s.exited(a, false)
	if reason != "" {
		return false, "", reason
	}
	what := s.command(false)
	if s.Manager == vocab.ManagerSystemd {
		switch code {
		case 0:
			return true, StateRunning, ""
		case 3:
			if printed := strings.TrimSpace(a.Output); word.MatchString(printed) {
				return false, printed, ""
			}
			return false, "inactive or failed", ""
		case 4:
			return false, "no such unit", ""
		}
		return false, "", fmt.Sprintf("%s exited %d: Zap can't tell whether it is running", what, code)
	}
	switch code {
	case 0:
		return true, StateRunning, ""
	case 3:
		return false, StateStopped, ""
	case 32:
		return false, StateCrashed, ""
	case 64:
		return false, "", fmt.Sprintf("%s says the service is unsupervised: its supervise-daemon died, and its daemon may still be running; check for the daemon, and run rc-service %s zap by hand", what, s.Name)
	}
	return false, "", fmt.Sprintf("%s exited %d: Zap can't tell whether it is running", what, code)
}
