// Package pass is the convergence pass the zap front end runs: it opens a
// command on a config (the config, its lock, the stages and the state
// directory), evaluates it with the pinned evaluator (through the eval
// cache), holds the target's connection context to the command's checks,
// reads the target's last run, runs zap-detect (started early when it
// may), zap-plan and a wetrun's zap-exec (counting its events), and records
// the pass's report. The front end
// (internal/zapcli) parses a command's flags, calls it in order and prints
// what it found; a failure is an Error carrying zap's exit code.
package pass

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"time"

	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/lock"
	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/internal/resolve"
	"github.com/zap-go/zap/internal/stages"
	"github.com/zap-go/zap/internal/state"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/events"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// Env is what a pass runs with: the operator environment (an env file's
// variables already in it), zap's own flags that reach the stages, and
// what the front end does at two points of the pass.
type Env struct {
	Getenv    func(string) string
	LookupEnv func(string) (string, bool)
	// Environ is the stages' environment; BigEnv the env file's
	// variables too long for it (internal/envpass), nil for none.
	Environ []string
	BigEnv  *os.File
	// Stderr takes the stages' warnings and zap's own.
	Stderr io.Writer
	Now    func() time.Time
	// StageDir overrides where the stages are found (tests); "" is
	// beside zap's own executable.
	StageDir string
	// Evaluator is --evaluator: the zap-eval to run, by absolute path.
	Evaluator string
	// Bootstrap is --bootstrap: zap-detect and zap-exec connect as the
	// target's bootstrap_user.
	Bootstrap bool
	// Resolved is told the config's references once they resolve: from
	// then on the front end masks their secrets out of what it writes.
	Resolved func(*resolve.Resolution)
	// NoLock is --no-lock: no tracked pin is read from zap.lock, none is
	// fetched and nothing is written to it (lockpins.go).
	NoLock bool
	// MintPins is apply's, dry or wet: ReadPins refuses a stale or
	// unverifiable tracked pin and mints a missing one.
	MintPins bool
	// Diff is --diff: a pass's first read of the target (Preview,
	// Observe) also reads the text of each file whose content would
	// change, and its observations carry the diff (zap-detect --diff);
	// the reading again after a wetrun (Detect) doesn't.
	Diff bool
	// BeforeDetect runs before a preview's zap-detect (the front end's
	// sudo warm-up on a terminal); nil for nothing.
	BeforeDetect func(ctx context.Context, d *declaration.Declaration, changes bool)
}

// Session is what every command that reads a config shares: the config, the
// stages and the state directory.
type Session struct {
	env    Env
	Config string // as given
	Abs    string // absolute: the report's key
	Lock   string // the config's zap.lock
	Stages *stages.Runner
	Store  *state.Store
	// cache is the state directory the pin cache is kept in: Store, or
	// for a command that keeps no state, the one HOME or ZAP_HOME names
	// (nil when neither is usable: then nothing is cached).
	cache *state.Store
	// Res and Conn are the config's references resolved and its target's
	// connection context, once Load evaluated it.
	Res  *resolve.Resolution
	Conn Connection
	// earlyWanted has a preview start zap-detect as soon as the evaluator
	// answers; early is that zap-detect, until taken (early.go).
	earlyWanted bool
	early       *stages.Early
	// read is the last-run report the early zap-detect's start read,
	// which lastRun takes rather than read it again.
	read *lastRead
	// minted are the tracked pins this pass fetched and minted, by id,
	// which zap-detect is handed (lockpins.go).
	minted map[string]lock.Entry
	// Pins is the standing of the config's tracked pins and what this
	// pass minted, once ReadPins read them.
	Pins Pins
	// Orphans are the ids the target's last run read or carried that the
	// config no longer declares, once Start read it (Orphans).
	Orphans []string
	// Elsewhere counts the ids Orphans would name when the last run was
	// against another target (TargetChanged): they were read there, so
	// they aren't this target's orphans, and none is carried forward.
	Elsewhere int
}

// lastRead is a host's last-run report as read (nil: there is none).
type lastRead struct {
	host   string
	loaded *state.Loaded
}

// Open prepares a command on config. withState opens the state directory
// too, refusing a HOME or ZAP_HOME that can't hold it.
func Open(env Env, config string, withState bool) (*Session, error) {
	s := &Session{env: env, Config: config}
	abs, err := filepath.Abs(config)
	if err != nil {
		return nil, exit.Failf(1, "config %s: %w", config, err)
	}
	s.Abs = abs
	if s.Lock, err = lock.Path(config); err != nil {
		return nil, exit.BadInput(err, "name the config zap.ts (or any name but *.lock): its lock is written beside it as zap.lock")
	}
	if _, err := os.Stat(abs); errors.Is(err, fs.ErrNotExist) {
		return nil, exit.Fail(2, fmt.Sprintf("config %s not found", config), "give the path of a zap.ts, or run zap in its directory")
	}
	if s.Stages, err = stages.New(env.StageDir, env.Environ, env.Stderr, env.BigEnv); err != nil {
		return nil, err
	}
	if !withState {
		s.cache, _ = state.Open(env.Getenv)
		return s, nil
	}
	if s.Store, err = state.Open(env.Getenv); err != nil {
		return nil, exit.BadInput(err, "Zap keeps its last-run reports in $ZAP_HOME, or else $HOME/.zap: set one to an absolute path")
	}
	if err := s.Store.Check(); err != nil {
		return nil, StateError(err)
	}
	s.cache = s.Store
	return s, nil
}

// Start begins every command that reads the target or its last run: it
// evaluates the config (Load), holds its connection context to check, and
// reads the target's last run (nil: there is none, or none is kept for a
// masked host).
func (s *Session) Start(ctx context.Context, check func(*Session) error) (*Evaluation, *state.Loaded, error) {
	ev, err := s.Load(ctx)
	if err != nil {
		return nil, nil, err
	}
	if err := check(s); err != nil {
		return nil, nil, err
	}
	last, err := s.lastRunOf(ev.Decl)
	if err != nil {
		return nil, nil, err
	}
	s.Orphans = Orphans(last, ev.Decl)
	if len(s.Orphans) > 0 {
		changed, err := TargetChanged(s.Res, ev.Decl, last.Report)
		if err != nil {
			return nil, nil, err
		}
		if changed {
			s.Elsewhere, s.Orphans = len(s.Orphans), nil
		}
	}
	return ev, last, nil
}

// TargetChanged reports whether d's target hashes to something else now
// than in the last run's report r: its host, user, port, home,
// package_manager... A target whose secret this environment can't resolve
// fails closed to changed, as a resource's hash does in zap status.
func TargetChanged(res *resolve.Resolution, d *declaration.Declaration, r *state.Report) (bool, error) {
	hash, secret, err := resolve.NewHasher(res).TargetHash(&d.Target)
	if err != nil {
		return false, exit.Failf(1, "state: %w", err)
	}
	unresolved := slices.ContainsFunc(d.Target.Refs(), func(n string) bool { return slices.Contains(res.Unresolved, n) })
	return hash != r.TargetHash || secret && unresolved, nil
}

// Orphans are the ids last read, then those it carried (state.Report's
// Orphans), that d doesn't declare, each once: what the config stopped
// declaring, which Zap never removes. nil when there is no last run.
func Orphans(last *state.Loaded, d *declaration.Declaration) []string {
	if last == nil {
		return nil
	}
	declared := make(map[string]bool, len(d.Resources))
	for i := range d.Resources {
		declared[d.Resources[i].ID] = true
	}
	var out []string
	add := func(id string) {
		if !declared[id] {
			declared[id] = true
			out = append(out, id)
		}
	}
	for _, r := range last.Report.Resources {
		add(r.ID)
	}
	for _, id := range last.Report.Orphans {
		add(id)
	}
	return out
}

// Preview runs the pass plan and a dry apply share: evaluate, check the
// state directory, detect, plan.
func (s *Session) Preview(ctx context.Context) (*Evaluation, *Detection, *Planned, error) {
	s.earlyWanted = true
	defer s.stopEarlyDetect()
	ev, _, err := s.Start(ctx, (*Session).CheckConnectable)
	if err != nil {
		return nil, nil, nil, err
	}
	det, err := s.Observe(ctx, ev, false, true)
	if err != nil {
		return nil, nil, nil, err
	}
	pl, err := s.Plan(ctx, det)
	if err != nil {
		return nil, nil, nil, err
	}
	return ev, det, pl, nil
}

// Observe is a pass's first read of the target: its tracked pins
// classified against the lock (ReadPins), the front end's Env.BeforeDetect,
// if any (changes: the pass may change the target), then zap-detect
// (Detect), or with thenPlan DetectThenPlan.
func (s *Session) Observe(ctx context.Context, ev *Evaluation, changes, thenPlan bool) (*Detection, error) {
	if err := s.ReadPins(ctx, ev); err != nil {
		return nil, err
	}
	if s.env.BeforeDetect != nil {
		s.env.BeforeDetect(ctx, ev.Decl, changes)
	}
	return s.detectWith(ctx, ev, thenPlan)
}

// CheckConnectable refuses a remote host or connecting user that resolves
// to nothing (Connection.CheckConnectable).
func (s *Session) CheckConnectable() error { return s.Conn.CheckConnectable() }

// CheckHost refuses a remote host that resolves to nothing
// (Connection.CheckHost).
func (s *Session) CheckHost() error { return s.Conn.CheckHost() }

// Load evaluates the config and, from here on, has the front end mask every
// secret it references out of everything zap writes. A referenced variable
// whose value isn't UTF-8 is refused here, exit 2, naming it.
func (s *Session) Load(ctx context.Context) (*Evaluation, error) {
	ev, err := s.evaluate(ctx)
	if err != nil {
		return nil, err
	}
	s.Adopt(ev)
	if err := s.Res.CheckUTF8(); err != nil {
		return nil, exit.BadInput(err, resolve.UTF8Hint)
	}
	return ev, nil
}

// Adopt resolves ev's references and its target's connection context, and
// has the front end mask every secret it references from here on: what
// Load does once it has evaluated, for zap lock, which evaluates with a
// binary of its own choosing.
func (s *Session) Adopt(ev *Evaluation) {
	s.Res = s.resolution(ev.Decl)
	s.Conn = connectionOf(ev.Decl, s.Res, s.env.Bootstrap)
	if s.env.Resolved != nil {
		s.env.Resolved(s.Res)
	}
	s.Stages.UseGC(s.env.Getenv, func(name string) bool { _, ok := s.Res.Lookup(name); return ok })
}

// Evaluation is a config evaluated: the declaration and its JSON as zap-eval
// wrote it, which zap-detect reads.
type Evaluation struct {
	Decl *declaration.Declaration
	JSON []byte
}

// Detection is one detection pass.
type Detection struct {
	Obs  *observation.Observations
	JSON []byte
	// planning is zap-plan already running on JSON, started as soon as
	// zap-detect answered (DetectThenPlan); nil when it wasn't started.
	planning chan stageResult
	stopPlan context.CancelFunc
	// report is the last-run report of the pass being made meanwhile,
	// but for the fields Record sets; nil when it isn't.
	report chan reportResult
}

type stageResult struct {
	out []byte
	err error
}

type reportResult struct {
	r   *state.Report
	err error
}

// Detect runs zap-detect on the declaration.
func (s *Session) Detect(ctx context.Context, ev *Evaluation) (*Detection, error) {
	args := slices.DeleteFunc(s.detectArgs(), func(a string) bool { return a == "--diff" })
	return s.detectWithArgs(ctx, ev, false, args)
}

// DetectAsUser runs zap-detect as Detect does, but connecting as the
// target's declared user even under --bootstrap: a --bootstrap wetrun's
// reading again, made as the account every later command connects as.
func (s *Session) DetectAsUser(ctx context.Context, ev *Evaluation) (*Detection, error) {
	// The lock's path is absolute and a pin is id=blake3, so no other
	// argument reads as the flag.
	args := slices.DeleteFunc(s.detectArgs(), func(a string) bool { return a == "--bootstrap" || a == "--diff" })
	return s.detectWithArgs(ctx, ev, false, args)
}

// DetectThenPlan runs zap-detect on the declaration and, when it answers,
// starts zap-plan on its observations at once, while zap reads them and
// makes the pass's report: Plan takes zap-plan's answer. zap-plan is a
// pure function of the observations, so starting it before zap has read
// them changes nothing but the time: observations zap can't read fail the
// pass as before, and zap-plan's answer is dropped.
func (s *Session) DetectThenPlan(ctx context.Context, ev *Evaluation) (*Detection, error) {
	return s.detectWith(ctx, ev, true)
}

// detectWith is Detect, or with thenPlan DetectThenPlan.
func (s *Session) detectWith(ctx context.Context, ev *Evaluation, thenPlan bool) (*Detection, error) {
	return s.detectWithArgs(ctx, ev, thenPlan, s.detectArgs())
}

// detectWithArgs is detectWith running zap-detect with args.
func (s *Session) detectWithArgs(ctx context.Context, ev *Evaluation, thenPlan bool, args []string) (*Detection, error) {
	out, err := s.runDetect(ctx, ev.JSON, args)
	if err != nil {
		return nil, err
	}
	det := &Detection{JSON: out}
	if thenPlan {
		pctx, cancel := context.WithCancel(ctx)
		det.planning, det.stopPlan = make(chan stageResult, 1), cancel
		go func() {
			out, err := s.Stages.Run(pctx, "zap-plan", det.JSON)
			det.planning <- stageResult{out, err}
		}()
	}
	// zap-detect writes the declaration it read as it read it: zap, which
	// read and validated those bytes already, doesn't again.
	o, err := observation.ReadKnown(out, ev.Decl, ev.JSON)
	if err != nil {
		if det.planning != nil {
			det.stopPlan()
			<-det.planning
		}
		return nil, exit.Failf(1, "zap-detect wrote observations zap can't read: %w", err)
	}
	det.Obs = o
	if thenPlan && s.Store != nil && !s.Conn.Unrecorded() {
		det.report = make(chan reportResult, 1)
		go func() {
			r, err := s.newReport(ev, det)
			det.report <- reportResult{r, err}
		}()
	}
	return det, nil
}

// Planned is a plan and its JSON as zap-plan wrote it, which zap-exec reads.
type Planned struct {
	Plan *plan.Plan
	JSON []byte
}

// Plan runs zap-plan on the observations (or takes the answer of the one
// DetectThenPlan started) and checks the plan_hash.
func (s *Session) Plan(ctx context.Context, det *Detection) (*Planned, error) {
	var out []byte
	var err error
	if det.planning != nil {
		r := <-det.planning
		det.stopPlan()
		det.planning = nil
		out, err = r.out, r.err
	} else {
		out, err = s.Stages.Run(ctx, "zap-plan", det.JSON)
	}
	if err != nil {
		return nil, err
	}
	p, err := plan.Read(out)
	if err == nil {
		err = plan.Verify(p, ops.Script)
	}
	if err != nil {
		return nil, exit.Failf(1, "zap-plan wrote a plan zap can't read: %w", err)
	}
	return &Planned{Plan: p, JSON: out}, nil
}

// Tally is what zap-exec's events said of a run.
type Tally struct {
	Started             bool // an event came
	OK, Failed, Skipped int
	NotOK               map[string]bool // the changes that failed or were skipped
}

// Exec runs zap-exec --wetrun on the plan and counts its events, handing
// each to each as it comes: the line zap-exec wrote and the event read
// from it. With progress zap-exec also writes step_output events (a
// running step's last output line), for a terminal's status line only.
func (s *Session) Exec(ctx context.Context, pl *Planned, progress bool, each func(line []byte, e *events.Event)) (Tally, error) {
	n := Tally{NotOK: map[string]bool{}}
	args := append(s.StageArgs(), "--wetrun")
	if progress {
		args = append(args, "--progress")
	}
	err := s.Stages.Stream(ctx, "zap-exec", pl.JSON, func(line []byte) error {
		e, err := events.Read(line)
		if err != nil {
			return exit.Failf(1, "zap-exec wrote an event zap can't read: %w", err)
		}
		n.Started = true
		switch e.Event {
		case events.ChangeOK:
			n.OK++
		case events.ChangeFailed:
			n.Failed++
			n.NotOK[e.ID] = true
		case events.ChangeSkipped:
			n.Skipped++
			n.NotOK[e.ID] = true
		}
		each(line, e)
		return nil
	}, args...)
	return n, err
}

// resolution resolves the declaration's references from the operator
// environment, as the stages do: for the report's hashes and the wetrun's
// check that every reference is set.
func (s *Session) resolution(d *declaration.Declaration) *resolve.Resolution {
	return resolve.Resolve(d, s.env.LookupEnv)
}

// RecordPass writes the report of a pass that was rendered with the
// connection's notes: none for a masked host, and never a preview of a plan
// no review can bind.
func (s *Session) RecordPass(cmd state.Command, preview bool, planHash string, ev *Evaluation, det *Detection) error {
	if s.Conn.Unrecorded() {
		return nil
	}
	if s.Conn.Unbindable() {
		preview, planHash = false, ""
	}
	return s.Record(cmd, preview, planHash, ev, det)
}

// lastRunOf is the last-run report of the config's target; none is kept
// for a masked host.
func (s *Session) lastRunOf(d *declaration.Declaration) (*state.Loaded, error) {
	if s.Conn.Unrecorded() {
		return nil, nil
	}
	return s.lastRun(HostKey(d, s.Res))
}

// lastRun reads the config's last-run report for host, refusing state that
// isn't the user's own.
func (s *Session) lastRun(h string) (*state.Loaded, error) {
	if r := s.read; r != nil && r.host == h {
		s.read = nil
		return r.loaded, nil
	}
	l, err := s.Store.Load(s.Abs, h)
	if err != nil {
		return nil, StateError(err)
	}
	return l, nil
}

// Record writes the report of a pass.
func (s *Session) Record(cmd state.Command, preview bool, planHash string, ev *Evaluation, det *Detection) error {
	var r *state.Report
	var err error
	if det.report != nil {
		got := <-det.report
		det.report = nil
		r, err = got.r, got.err
	} else {
		r, err = s.newReport(ev, det)
	}
	if err != nil {
		return exit.Failf(1, "state: %w", err)
	}
	// What state.NewReport makes of a Pass's command, preview, plan_hash
	// and time.
	r.Command, r.Preview, r.PlanHash = cmd, preview, planHash
	// The orphans are carried forward until a wetrun executes, which
	// names them as every pass before it did.
	if cmd != state.CmdWetrun && cmd != state.CmdObserve {
		r.Orphans = s.Orphans
	}
	r.Time = s.env.Now().UTC().Format(time.RFC3339)
	// The key the report is looked up by (HostKey), which is the host
	// zap-detect resolved and connected to.
	if err := s.Store.Save(s.Abs, HostKey(&det.Obs.Declaration, s.Res), r); err != nil {
		return StateError(err)
	}
	return nil
}

// newReport makes the report of a pass, but for its command, preview,
// plan_hash and time, which Record sets. The references resolve against
// the declaration zap-detect read: the one evaluated (then the resolution
// Load made is the one), as it always is from this zap's stages.
func (s *Session) newReport(ev *Evaluation, det *Detection) (*state.Report, error) {
	res := s.Res
	if res == nil || !reflect.DeepEqual(*ev.Decl, det.Obs.Declaration) {
		res = s.resolution(&det.Obs.Declaration)
	}
	return state.NewReport(state.Pass{Time: s.env.Now(), Obs: det.Obs, Hasher: resolve.NewHasher(res)})
}

// VerdictCode is 1 when a pass couldn't establish a verdict: a resource it
// couldn't read, or a reference unset.
func VerdictCode(o *observation.Observations) int {
	if len(o.Unresolved) > 0 {
		return 1
	}
	for _, r := range o.Resources {
		if r.Verdict == observation.Undetermined {
			return 1
		}
	}
	return 0
}

// StageArgs are the flags zap-detect and zap-exec take from zap's own:
// --bootstrap.
func (s *Session) StageArgs() []string {
	if s.env.Bootstrap {
		return []string{"--bootstrap"}
	}
	return nil
}
