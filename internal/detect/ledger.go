package detect

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// PendingDir is where the pending-trigger markers live on a target: one
// file per owed service, named as the service manager knows it, holding
// the owed action (restart or reload) on one line.
const PendingDir = declaration.StateDir + "/pending"

// markerName is the form of a marker's name: a service name as the
// structural check takes one.
var markerName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.@:-]*$`)

// LedgerProbe lists PendingDir as root. It prints one line per entry:
// "m NAME ACTION" for a regular file whose name is a service name (ACTION
// is restart, reload, or unknown for any other content), "x" for an entry
// that isn't a marker Zap writes. A missing directory owes nothing (exit
// 0, nothing printed). A pending path that is a symbolic link or no
// directory exits 3, and a directory that can't be entered or a marker
// that can't be read exits 4: the plan fails.
const LedgerProbe = `d=` + PendingDir + `
if [ -L /var/lib/zap ] || [ -L "$d" ]; then exit 3; fi
if [ ! -e "$d" ]; then exit 0; fi
[ -d "$d" ] || exit 3
cd "$d" || exit 4
for f in * .[!.]* ..?*; do
	if [ ! -e "$f" ] && [ ! -L "$f" ]; then continue; fi
	case $f in
	[!A-Za-z0-9]* | *[!A-Za-z0-9_.@:-]*) echo x; continue ;;
	esac
	if [ -L "$f" ] || [ ! -f "$f" ]; then echo x; continue; fi
	a=$(cat -- "$f") || exit 4
	case $a in
	restart | reload) ;;
	*) a=unknown ;;
	esac
	printf 'm %s %s\n' "$f" "$a"
done
exit 0`

// Ledger reads the pending-trigger markers: one probe as root. It is read
// in the plan's pass, for a config that declares a trigger, after the
// resources' reads; Verdict records what it read in Markers and Strays.
type Ledger struct {
	// Markers are the markers read, sorted by service. A marker whose
	// content isn't restart or reload reads as a restart, the action that
	// covers both.
	Markers []observation.Marker
	// Unknown names the markers whose content wasn't restart or reload.
	Unknown []string
	// Strays counts the entries that aren't markers Zap writes.
	Strays int
}

// DeclaresTrigger reports whether d declares a trigger: a file's triggers,
// or a service's restart_on or reload_on. Such a config reads the ledger on
// every pass.
func DeclaresTrigger(d *declaration.Declaration) bool {
	for i := range d.Resources {
		if len(d.Resources[i].TriggerEdges()) > 0 {
			return true
		}
	}
	return false
}

// Queries: the ledger's one probe, as root.
func (l *Ledger) Queries() []Query { return []Query{NewProbe(observation.LaneRoot, LedgerProbe)} }

// Verdict parses the probe's answer into l. It is converged when the ledger
// was read, and holds (the caller fails the plan) when it wasn't.
func (l *Ledger) Verdict(a []Answer) Result {
	l.Markers, l.Unknown, l.Strays = nil, nil, 0
	if len(a) != 1 {
		return hold(fmt.Sprintf("%d answers for the ledger's 1 read", len(a)))
	}
	r := a[0]
	switch r.Status {
	case StatusOK:
	case StatusFailed:
		if r.Detail != "" {
			return hold("the read of " + PendingDir + " gave no exit status: " + r.Detail)
		}
		return hold("the read of " + PendingDir + " gave no exit status")
	default:
		return hold(problem(r, PendingDir, vocab.ProbeTimeout))
	}
	switch r.Exit {
	case 0:
	case 3:
		return hold(PendingDir + " (or " + declaration.StateDir + ") is a symbolic link or not a directory")
	case 4:
		return hold(PendingDir + " or a marker in it couldn't be read as root")
	default:
		return hold(fmt.Sprintf("the read of %s exited %d", PendingDir, r.Exit))
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSuffix(r.Output, "\n"), "\n") {
		if line == "" {
			continue
		}
		if line == "x" {
			l.Strays++
			continue
		}
		f := strings.Split(line, " ")
		if len(f) != 3 || f[0] != "m" || !markerName.MatchString(f[1]) || seen[f[1]] {
			return hold("the read of " + PendingDir + " printed a line Zap didn't expect")
		}
		seen[f[1]] = true
		action := observation.TriggerAction(f[2])
		switch action {
		case observation.Restart, observation.Reload:
		case "unknown":
			action = observation.Restart
			l.Unknown = append(l.Unknown, f[1])
		default:
			return hold("the read of " + PendingDir + " printed a line Zap didn't expect")
		}
		l.Markers = append(l.Markers, observation.Marker{Service: f[1], Action: action})
	}
	sort.Slice(l.Markers, func(i, j int) bool { return l.Markers[i].Service < l.Markers[j].Service })
	sort.Strings(l.Unknown)
	return converged()
}

// Warnings are the sentences the ledger's read gives for d: a marker for a
// service d doesn't manage (which nothing in the plan will run or clear), a
// marker whose content isn't an action (owed as a restart), and entries
// that aren't markers.
func (l *Ledger) Warnings(d *declaration.Declaration) []string {
	managed := map[string]bool{}
	for i := range d.Resources {
		if name, ok := d.Resources[i].ServiceName(); ok {
			managed[name] = true
		}
	}
	var out []string
	for _, m := range l.Markers {
		if !managed[m.Service] {
			out = append(out, fmt.Sprintf("%s/%s owes %s a %s, and this config doesn't manage that service: nothing here runs or clears it (remove the marker once the service is on its current config)", PendingDir, m.Service, m.Service, m.Action))
		}
	}
	for _, name := range l.Unknown {
		out = append(out, fmt.Sprintf("%s/%s holds neither restart nor reload: it is owed as a restart", PendingDir, name))
	}
	if l.Strays > 0 {
		out = append(out, fmt.Sprintf("%s holds %d entr%s that aren't markers Zap writes; they are ignored", PendingDir, l.Strays, plural(l.Strays, "y", "ies")))
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
