package cliout

import (
	"encoding/json"
	"fmt"

	"github.com/zap-go/zap/internal/strict"
)

// HostsFormat is what zap plan, zap apply and zap status write under
// --json when they run several hosts: one HostLine a line.
const HostsFormat = "zap.hosts/1"

// HostLine is one line of a command over several hosts under --json: a
// line the host's own run wrote (Host and Line: a document of this
// package, or a zap.events/1 event, exactly as a run of that host alone
// writes it), a host starting to wait (Host and Wait), or, last, the
// Summary.
type HostLine struct {
	Format string `json:"format"`
	// Host is the host's label: its config's path as the command named
	// it. Set on every line but the summary.
	Host string `json:"host,omitempty"`
	// Line is the host's own line.
	Line json.RawMessage `json:"line,omitempty"`
	// Wait is what the host waits for from now on, when it can't go on
	// at once: WaitSlot or WaitHosts. Its next line says it went on.
	Wait    string        `json:"wait,omitempty"`
	Summary *HostsSummary `json:"summary,omitempty"`
}

// What a host of a command over several waits for (HostLine.Wait).
const (
	// WaitSlot: the host is past the first -j, so it doesn't start at
	// once but when a host before it gives up its slot. Written before
	// any host's line.
	WaitSlot = "slot"
	// WaitHosts: the host's wetrun has its plan and waits for the other
	// hosts' plans before any host is bound (docs/cli.md).
	WaitHosts = "hosts"
)

// HostsSummary ends a command over several hosts.
type HostsSummary struct {
	// Exit is the command's exit code: the worst of the hosts'.
	Exit  int          `json:"exit"`
	Hosts []HostResult `json:"hosts"`
	// CombinedPlanHash is the combined plan_hash over the hosts'
	// plan_hashes in order (docs/cli.md), absent when a host made no
	// plan.
	CombinedPlanHash string `json:"combined_plan_hash,omitempty"`
}

// HostResult is one host in the summary.
type HostResult struct {
	Host string `json:"host"`
	Exit int    `json:"exit"`
	// Error is the host's error, one line, when it had one its own
	// output didn't already report.
	Error    string `json:"error,omitempty"`
	PlanHash string `json:"plan_hash,omitempty"`
	// Creates, Updates and Held count the host's plan; absent when it
	// made none.
	Creates *int `json:"creates,omitempty"`
	Updates *int `json:"updates,omitempty"`
	Held    *int `json:"held,omitempty"`
}

// ReadHostLine reads one line of a command over several hosts strictly:
// its format, no unknown field, and either a host's line, a host's wait
// or the summary.
func ReadHostLine(data []byte) (*HostLine, error) {
	var l HostLine
	if err := strict.Read(data, HostsFormat, nil, &l); err != nil {
		return nil, err
	}
	switch {
	case l.Summary != nil && (l.Host != "" || l.Line != nil || l.Wait != ""):
		return nil, fmt.Errorf("%s line: a summary names no host and carries no line or wait", HostsFormat)
	case l.Summary != nil:
	case l.Host == "":
		return nil, fmt.Errorf("%s line: a host's line names its host", HostsFormat)
	case (l.Line == nil) == (l.Wait == ""):
		return nil, fmt.Errorf("%s line: a host's line carries a line or a wait, one of them", HostsFormat)
	case l.Wait != "" && l.Wait != WaitSlot && l.Wait != WaitHosts:
		return nil, fmt.Errorf("%s line: wait %q is neither %q nor %q", HostsFormat, l.Wait, WaitSlot, WaitHosts)
	}
	return &l, nil
}
