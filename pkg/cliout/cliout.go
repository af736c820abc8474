// Package cliout is what zap plan, zap detect and zap status (and a dry zap
// apply, a dry zap deploy) write on stdout under --json: one document per run, in canonical
// form (pkg/canon) and ended by a newline, read strictly like the documents
// between the stages (docs/protocol.md, The front end's --json).
//
// Each document carries "format" first and "exit", the command's exit
// code, always. A run that failed before its result (a config that doesn't
// evaluate, a target that can't be reached, a usage error) writes the same
// document with "error" (the message the text output prints) and "hints",
// and none of the result's fields: a CI job reads one document whatever
// happened.
//
// zap apply --wetrun --json and zap deploy --wetrun --json write the
// zap.events/1 stream instead (pkg/events); there an error is the done
// event's error.
package cliout

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/zap-go/zap/internal/strict"
	"github.com/zap-go/zap/pkg/canon"
	"github.com/zap-go/zap/pkg/deployplan"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// The formats, name and version, one per command.
const (
	PlanFormat   = "zap.cli-plan/1"
	DetectFormat = "zap.cli-detect/1"
	StatusFormat = "zap.cli-status/1"
	DeployFormat = "zap.cli-deploy/1"
)

// Plan is zap plan --json (Command "plan") and a dry zap apply --json
// (Command "apply"): the plan the pass made and recorded as the preview.
type Plan struct {
	Format  string `json:"format"`
	Command string `json:"command"`
	Exit    int    `json:"exit"`
	// Error and Hints are a failure before the plan; then no other field
	// but Format, Command and Exit is written.
	Error string   `json:"error,omitempty"`
	Hints []string `json:"hints,omitempty"`
	// PlanHash is Plan's plan_hash: what zap apply --wetrun --expect-plan
	// takes.
	PlanHash string `json:"plan_hash,omitempty"`
	// Plan is the zap.plan/1 document zap-plan wrote.
	Plan json.RawMessage `json:"plan,omitempty"`
	// Held are the ids of the resources the plan holds (its "held").
	Held []string `json:"held,omitempty"`
	// HeldHints say what would let the held resources be read, as the
	// text plan's hint lines under its UNDETERMINED banner do (a remote
	// target's passwordless sudo). An optional field, added in version 1.
	HeldHints []string `json:"held_hints,omitempty"`
	Lock      *Lock    `json:"lock,omitempty"`
	// Unbindable names the secret references the target's host or users
	// go through: no wetrun binds to this plan.
	Unbindable []string `json:"unbindable,omitempty"`
	// Unrecorded is true when the host goes through a secret reference,
	// so the pass wasn't recorded as this host's preview.
	Unrecorded bool `json:"unrecorded,omitempty"`
	// Orphans are ids an earlier run read that the config no longer
	// declares: Zap never removes them.
	Orphans []string `json:"orphans,omitempty"`
	// Diffs are, under --diff, the content diffs of the plan's changes,
	// in the plan's order: each file whose content would change, with its
	// unified diff or the line that stands for it, every secret masked.
	// Display only: the plan and its plan_hash don't depend on them. An
	// optional field, added in version 1.
	Diffs []ContentDiff `json:"diffs,omitempty"`
}

// ContentDiff is one change's content diff.
type ContentDiff struct {
	ID   string `json:"id"`
	Diff string `json:"diff"`
}

// Detect is zap detect --json: the observations and each resource's
// verdict.
type Detect struct {
	Format string   `json:"format"`
	Exit   int      `json:"exit"`
	Error  string   `json:"error,omitempty"`
	Hints  []string `json:"hints,omitempty"`
	// Observations is the zap.observations/1 document zap-detect wrote.
	Observations json.RawMessage `json:"observations,omitempty"`
	// Resources is each declared resource's verdict, in the declaration's
	// order: the observations' verdicts with each resource's type.
	Resources []Verdict `json:"resources,omitempty"`
	// HeldHints say what would let the undetermined resources be read,
	// as a plan document's held_hints do. An optional field, added in
	// version 1.
	HeldHints  []string `json:"held_hints,omitempty"`
	Lock       *Lock    `json:"lock,omitempty"`
	Unrecorded bool     `json:"unrecorded,omitempty"`
}

// Verdict is one resource's verdict.
type Verdict struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	Verdict string `json:"verdict"`
	// Reason is why an undetermined resource couldn't be read.
	Reason string `json:"reason,omitempty"`
	// Drift names the attributes of a drifted resource that differ.
	Drift []string `json:"drift,omitempty"`
}

// Status is zap status --json: the last run on the config's target, as
// the declared resources stand against it now. Offline.
type Status struct {
	Format string   `json:"format"`
	Exit   int      `json:"exit"`
	Error  string   `json:"error,omitempty"`
	Hints  []string `json:"hints,omitempty"`
	// Host is the target's key in the state directory.
	Host string `json:"host,omitempty"`
	// Last is the last-run report; left out when there is none.
	Last *Last `json:"last,omitempty"`
	// Resources are the declared resources, in the declaration's order.
	Resources []StatusResource `json:"resources,omitempty"`
	// Orphans are ids an earlier run read that are no longer declared
	// (carried forward until a wetrun executes).
	Orphans []string `json:"orphans,omitempty"`
	// UnresolvedNow names the referenced variables unset or empty now.
	UnresolvedNow []string `json:"unresolved_now,omitempty"`
	Lock          *Lock    `json:"lock,omitempty"`
}

// Last is the last run: when, which command, and the plan it made.
type Last struct {
	Time    string `json:"time"`
	Command string `json:"command"`
	// User is the account the pass read as; left out when ssh chose it.
	User string `json:"user,omitempty"`
	// Preview is true for a pass a wetrun binds to.
	Preview    bool     `json:"preview,omitempty"`
	PlanHash   string   `json:"plan_hash,omitempty"`
	Unresolved []string `json:"unresolved,omitempty"`
	// TargetChanged is true when the config's target (zap.target) changed
	// since the last run: its host, user, port, home, package_manager...
	TargetChanged bool `json:"target_changed,omitempty"`
}

// StatusResource is one declared resource as the last run saw it.
type StatusResource struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	// Verdict is the last run's, left out when it didn't read it.
	Verdict string `json:"verdict,omitempty"`
	// Changed is true when its declaration hashes differently now.
	Changed bool `json:"changed,omitempty"`
	// Secret is true when it references a secret.
	Secret bool `json:"secret,omitempty"`
}

// Deploy is a dry zap deploy --json: the deploy plan the preview shows,
// recorded as the host's deploy preview when it has a plan_hash. Version,
// Target, Live and AlreadyLive repeat what the plan says, for a reader
// that wants the answer without reading the plan.
type Deploy struct {
	Format string `json:"format"`
	Exit   int    `json:"exit"`
	// Error and Hints are a failure before the plan; then no other field
	// but Format and Exit is written.
	Error string   `json:"error,omitempty"`
	Hints []string `json:"hints,omitempty"`
	// Plan is the zap.deploy-plan/2 document zap-deploy plan wrote: the
	// health URL's references unresolved, a secret's value in no field.
	Plan json.RawMessage `json:"plan,omitempty"`
	// PlanHash is the plan's plan_hash, what zap deploy --wetrun
	// --expect-plan takes; left out when the plan has none (AlreadyLive,
	// a dirty tree without --force, Unbindable).
	PlanHash string `json:"plan_hash,omitempty"`
	// Version is the release the plan ships (its source.version).
	Version string `json:"version,omitempty"`
	// Target is the host the release goes to, as it resolved (the plan's
	// target.host; [MASKED:NAME] behind a secret).
	Target string `json:"target,omitempty"`
	// Live is the release the target's current link named (the plan's
	// live.release), left out for none.
	Live string `json:"live,omitempty"`
	// AlreadyLive is true when Version is live and the plan doesn't
	// force it: "server already at this version", nothing to ship.
	AlreadyLive bool `json:"already_live,omitempty"`
	// Lock is zap.lock's standing when the wetrun's drift preflight reads
	// it (no --skip-preflight, a resource declared): a stale or
	// unverifiable pin there refuses the wetrun. Left out otherwise.
	Lock *Lock `json:"lock,omitempty"`
	// Unbindable names the secret references the host, connecting users or
	// health domain go through, as the UNBINDABLE line names them: no
	// wetrun binds to this plan.
	Unbindable []string `json:"unbindable,omitempty"`
	// Unrecorded is true when the plan has a plan_hash but there is no
	// state directory to record it in: only --expect-plan binds it.
	Unrecorded bool `json:"unrecorded,omitempty"`
}

// Lock is how the config's tracked pins stand against zap.lock.
type Lock struct {
	// NoLock is --no-lock: no entry was read; Pins is then empty.
	NoLock bool `json:"no_lock,omitempty"`
	// Tracked is how many resources have a tracked pin.
	Tracked int `json:"tracked,omitempty"`
	// Pins are each tracked pin's standing, in declaration order, then
	// the orphaned entries.
	Pins []Pin `json:"pins,omitempty"`
}

// Pin is one tracked pin's standing, or one orphaned entry's.
type Pin struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
	// Standing is current, missing, stale, unverifiable or orphaned.
	Standing string `json:"standing"`
	// Blake3 is the entry's pin, or for a missing one the pin this pass
	// minted by fetching (then Minted is true).
	Blake3 string `json:"blake3,omitempty"`
	Minted bool   `json:"minted,omitempty"`
	// Written is true when the minted pin is in zap.lock now.
	Written bool `json:"written,omitempty"`
	// Unset names the variables that make an entry unverifiable.
	Unset []string `json:"unset,omitempty"`
}

// The standings of a pin.
var standings = []string{"current", "missing", "stale", "unverifiable", "orphaned"}

// The verdicts, and the commands a last-run report may name.
var (
	verdicts = []string{string(observation.Converged), string(observation.Drifted), string(observation.Absent), string(observation.Undetermined)}
	commands = []string{"plan", "apply", "apply --wetrun", "observe", "detect", "refused", "declined"}
)

// Encode writes a document in canonical form, ended by a newline.
func Encode(doc any) ([]byte, error) {
	b, err := canon.Marshal(doc)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// ReadPlan reads a Plan document strictly, and its plan with plan.Read.
func ReadPlan(data []byte) (*Plan, *plan.Plan, error) {
	var d Plan
	if err := strict.Read(data, PlanFormat, nil, &d); err != nil {
		return nil, nil, err
	}
	if d.Command != "plan" && d.Command != "apply" {
		return nil, nil, fmt.Errorf("command: %q is not plan or apply", d.Command)
	}
	if err := checkFailure(d.Exit, d.Error, d.Hints, d.Plan != nil); err != nil {
		return nil, nil, err
	}
	if d.Plan == nil {
		if d.PlanHash != "" || d.Held != nil || d.HeldHints != nil || d.Lock != nil || d.Unbindable != nil || d.Unrecorded || d.Orphans != nil || d.Diffs != nil {
			return nil, nil, fmt.Errorf("error: a failed run writes no result field")
		}
		return &d, nil, nil
	}
	p, err := plan.Read(d.Plan)
	if err != nil {
		return nil, nil, fmt.Errorf("plan: %w", err)
	}
	if d.PlanHash != p.Hash {
		return nil, nil, fmt.Errorf("plan_hash: %q is not the plan's %q", d.PlanHash, p.Hash)
	}
	var held []string
	for _, h := range p.Held {
		held = append(held, h.ID)
	}
	if !slices.Equal(held, d.Held) {
		return nil, nil, fmt.Errorf("held: %v is not the plan's held %v", d.Held, held)
	}
	if d.HeldHints != nil && held == nil {
		return nil, nil, fmt.Errorf("held_hints: a plan that holds nothing has no hint for what it holds")
	}
	if d.Lock == nil {
		return nil, nil, fmt.Errorf("lock: required field missing")
	}
	if err := checkDiffs(d.Diffs, p); err != nil {
		return nil, nil, err
	}
	return &d, p, checkLock(d.Lock)
}

// checkDiffs holds a plan document's content diffs to its plan: each names
// a change of a file, once, in the plan's order, with a diff.
func checkDiffs(diffs []ContentDiff, p *plan.Plan) error {
	at := 0
	for i, d := range diffs {
		for at < len(p.Changes) && p.Changes[at].ID != d.ID {
			at++
		}
		switch {
		case at == len(p.Changes):
			return fmt.Errorf("diffs[%d].id: %q is no change of the plan's after the one before it", i, d.ID)
		case d.Diff == "":
			return fmt.Errorf("diffs[%d] (%s).diff: empty", i, d.ID)
		}
		at++
	}
	return nil
}

// ReadDetect reads a Detect document strictly, and its observations with
// observation.Read.
func ReadDetect(data []byte) (*Detect, *observation.Observations, error) {
	var d Detect
	if err := strict.Read(data, DetectFormat, nil, &d); err != nil {
		return nil, nil, err
	}
	if err := checkFailure(d.Exit, d.Error, d.Hints, d.Observations != nil); err != nil {
		return nil, nil, err
	}
	if d.Observations == nil {
		if d.Resources != nil || d.HeldHints != nil || d.Lock != nil || d.Unrecorded {
			return nil, nil, fmt.Errorf("error: a failed run writes no result field")
		}
		return &d, nil, nil
	}
	o, err := observation.Read(d.Observations)
	if err != nil {
		return nil, nil, fmt.Errorf("observations: %w", err)
	}
	if len(d.Resources) != len(o.Resources) {
		return nil, nil, fmt.Errorf("resources: %d verdicts for %d observed resources", len(d.Resources), len(o.Resources))
	}
	for i, v := range d.Resources {
		r := o.Resources[i]
		var drift []string
		for _, df := range r.Drift {
			drift = append(drift, df.Field)
		}
		if v.ID != r.ID || v.Type != string(o.Declaration.Resources[i].Type) || v.Verdict != string(r.Verdict) || v.Reason != r.Reason || !slices.Equal(v.Drift, drift) {
			return nil, nil, fmt.Errorf("resources[%d] (%s): not the observations' verdict of %s", i, v.ID, r.ID)
		}
	}
	if d.HeldHints != nil && !slices.ContainsFunc(o.Resources, func(r observation.Resource) bool { return r.Verdict == observation.Undetermined }) {
		return nil, nil, fmt.Errorf("held_hints: a detection that read every resource has no hint for what it couldn't read")
	}
	if d.Lock == nil {
		return nil, nil, fmt.Errorf("lock: required field missing")
	}
	return &d, o, checkLock(d.Lock)
}

// ReadStatus reads a Status document strictly.
func ReadStatus(data []byte) (*Status, error) {
	var d Status
	if err := strict.Read(data, StatusFormat, nil, &d); err != nil {
		return nil, err
	}
	if err := checkFailure(d.Exit, d.Error, d.Hints, d.Host != ""); err != nil {
		return nil, err
	}
	if d.Host == "" {
		if d.Last != nil || d.Resources != nil || d.Orphans != nil || d.UnresolvedNow != nil || d.Lock != nil {
			return nil, fmt.Errorf("error: a failed run writes no result field")
		}
		return &d, nil
	}
	if l := d.Last; l != nil && (l.Time == "" || !slices.Contains(commands, l.Command)) {
		return nil, fmt.Errorf("last: a time and a known command are required, not %q, %q", l.Time, l.Command)
	}
	for i, r := range d.Resources {
		if r.ID == "" || r.Type == "" || r.Verdict != "" && !slices.Contains(verdicts, r.Verdict) {
			return nil, fmt.Errorf("resources[%d] (%s): an id, a type and a known verdict are required", i, r.ID)
		}
	}
	if d.Lock == nil {
		return nil, fmt.Errorf("lock: required field missing")
	}
	return &d, checkLock(d.Lock)
}

// ReadDeploy reads a Deploy document strictly, and its deploy plan with
// deployplan.Read (its shape; zap-deploy run verifies its hash against
// its own scripts).
func ReadDeploy(data []byte) (*Deploy, *deployplan.Plan, error) {
	var d Deploy
	if err := strict.Read(data, DeployFormat, nil, &d); err != nil {
		return nil, nil, err
	}
	if err := checkFailure(d.Exit, d.Error, d.Hints, d.Plan != nil); err != nil {
		return nil, nil, err
	}
	if d.Plan == nil {
		if d.PlanHash != "" || d.Version != "" || d.Target != "" || d.Live != "" || d.AlreadyLive || d.Lock != nil || d.Unbindable != nil || d.Unrecorded {
			return nil, nil, fmt.Errorf("error: a failed run writes no result field")
		}
		return &d, nil, nil
	}
	p, err := deployplan.Read(d.Plan)
	if err != nil {
		return nil, nil, fmt.Errorf("plan: %w", err)
	}
	live := p.Live.State == deployplan.LiveRelease && p.Live.Release == p.Source.Version &&
		p.Source.Tree == deployplan.Clean && !p.Flags.Force
	switch {
	case d.Exit != 0:
		return nil, nil, fmt.Errorf("exit: a dry deploy that wrote its plan exits 0, not %d", d.Exit)
	case d.PlanHash != p.Hash:
		return nil, nil, fmt.Errorf("plan_hash: %q is not the plan's %q", d.PlanHash, p.Hash)
	case d.Version != p.Source.Version:
		return nil, nil, fmt.Errorf("version: %q is not the plan's source.version %q", d.Version, p.Source.Version)
	case d.Target != p.Target.Host:
		return nil, nil, fmt.Errorf("target: %q is not the plan's target.host %q", d.Target, p.Target.Host)
	case d.Live != p.Live.Release:
		return nil, nil, fmt.Errorf("live: %q is not the plan's live.release %q", d.Live, p.Live.Release)
	case d.AlreadyLive != live:
		return nil, nil, fmt.Errorf("already_live: %v, but the plan says %v", d.AlreadyLive, live)
	case d.PlanHash != "" && d.AlreadyLive:
		return nil, nil, fmt.Errorf("plan_hash: a plan already live has none")
	case d.Unrecorded && d.PlanHash == "":
		return nil, nil, fmt.Errorf("unrecorded: a plan with no plan_hash is never recorded")
	}
	if d.Lock == nil {
		return &d, p, nil
	}
	return &d, p, checkLock(d.Lock)
}

// checkFailure holds a document to its exit code: a result, or an error
// with a non-zero exit.
func checkFailure(exit int, msg string, hints []string, result bool) error {
	switch {
	case exit < 0 || exit > 2:
		return fmt.Errorf("exit: %d is not 0, 1 or 2", exit)
	case result && (msg != "" || hints != nil):
		return fmt.Errorf("error: a run with a result has no error")
	case !result && msg == "":
		return fmt.Errorf("error: required field missing (a run with no result)")
	case !result && exit == 0:
		return fmt.Errorf("exit: a failed run doesn't exit 0")
	}
	return nil
}

func checkLock(l *Lock) error {
	if l.NoLock && l.Pins != nil {
		return fmt.Errorf("lock.pins: --no-lock reads no entry")
	}
	for i, p := range l.Pins {
		if p.ID == "" || p.Kind == "" || !slices.Contains(standings, p.Standing) {
			return fmt.Errorf("lock.pins[%d] (%s): an id, a kind and a known standing are required", i, p.ID)
		}
		if (p.Minted || p.Written) && p.Standing != "missing" {
			return fmt.Errorf("lock.pins[%d] (%s): only a missing pin is minted", i, p.ID)
		}
	}
	return nil
}
