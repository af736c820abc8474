package zapcli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"time"

	"github.com/zap-go/zap/internal/lock"
	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/internal/resolve"
	"github.com/zap-go/zap/internal/stages"
	"github.com/zap-go/zap/internal/state"
	"github.com/zap-go/zap/pkg/canon"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// session is what every command that reads a config shares: the config, the
// stages and the state directory.
type session struct {
	a      *app
	config string // as given
	abs    string // absolute: the report's key
	lock   string // the config's zap.lock
	st     *stages.Runner
	store  *state.Store
	// cache is the state directory the pin cache is kept in: store, or
	// for a command that keeps no state, the one HOME or ZAP_HOME names
	// (nil when neither is usable: then nothing is cached).
	cache *state.Store
	// res and conn are the config's references resolved and its target's
	// connection context, once load evaluated it.
	res  *resolve.Resolution
	conn connection
	// earlyWanted has a preview start zap-detect as soon as the evaluator
	// answers; early is that zap-detect, until taken (early.go).
	earlyWanted bool
	early       *stages.Early
	// read is the last-run report the early zap-detect's start read,
	// which lastRun takes rather than read it again.
	read *lastRead
}

// lastRead is a host's last-run report as read (nil: there is none).
type lastRead struct {
	host   string
	loaded *state.Loaded
}

// open prepares a command on config. withState opens the state directory
// too, refusing a HOME or ZAP_HOME that can't hold it.
func (a *app) open(config string, withState bool) (*session, error) {
	if err := a.loadEnvFile(); err != nil {
		return nil, err
	}
	s := &session{a: a, config: config}
	abs, err := filepath.Abs(config)
	if err != nil {
		return nil, failf(1, "config %s: %v", config, err)
	}
	s.abs = abs
	if s.lock, err = lock.Path(config); err != nil {
		return nil, fail(2, err.Error(), "name the config zap.ts (or any name but *.lock): its lock is written beside it as zap.lock")
	}
	if _, err := os.Stat(abs); errors.Is(err, fs.ErrNotExist) {
		return nil, fail(2, fmt.Sprintf("config %s not found", config), "give the path of a zap.ts, or run zap in its directory")
	}
	if s.st, err = stages.New(a.stageDir, a.environ, a.stderr, a.bigEnv); err != nil {
		return nil, err
	}
	if !withState {
		s.cache, _ = state.Open(a.getenv)
	}
	if withState {
		if s.store, err = state.Open(a.getenv); err != nil {
			return nil, fail(2, err.Error(), "Zap keeps its last-run reports in $ZAP_HOME, or else $HOME/.zap: set one to an absolute path")
		}
		if err := s.store.Check(); err != nil {
			return nil, stateError(err)
		}
		s.cache = s.store
	}
	return s, nil
}

// preview runs the pass plan and a dry apply share: evaluate, check the
// state directory, detect, plan.
func (s *session) preview(ctx context.Context) (*evaluation, *detection, *planned, error) {
	s.earlyWanted = true
	defer s.stopEarlyDetect()
	ev, err := s.load(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := s.conn.checkConnectable(); err != nil {
		return nil, nil, nil, err
	}
	if _, err := s.lastRunOf(ev.decl); err != nil {
		return nil, nil, nil, err
	}
	s.warmSudo(ctx, ev.decl, false)
	det, err := s.detectThenPlan(ctx, ev)
	if err != nil {
		return nil, nil, nil, err
	}
	pl, err := s.plan(ctx, det)
	if err != nil {
		return nil, nil, nil, err
	}
	return ev, det, pl, nil
}

// stateError gives a state failure its exit code: a directory or file that
// isn't the user's own is an input to fix (2); anything else is the world (1).
func stateError(err error) error {
	if errors.Is(err, state.ErrUntrusted) {
		return fail(2, fmt.Sprintf("state: %v", err),
			"every file under ~/.zap (or $ZAP_HOME) must belong to the user Zap runs as, and no other account may write it; fix or remove it")
	}
	if pastLimit(err) {
		return fail(2, fmt.Sprintf("state: %v", err), "zap writes no file under ~/.zap (or $ZAP_HOME) past the limits of a document; remove it")
	}
	return failf(1, "state: %v", err)
}

// pastLimit reports whether err is a document past one of canon's limits
// (its size, depth or values): an input to fix, exit 2.
func pastLimit(err error) bool {
	var limit *canon.LimitError
	return errors.As(err, &limit)
}

// load evaluates the config and, from here on, masks every secret it
// references out of everything zap writes.
func (s *session) load(ctx context.Context) (*evaluation, error) {
	ev, err := s.evaluate(ctx)
	if err != nil {
		return nil, err
	}
	s.res = s.resolution(ev.decl)
	s.conn = connectionOf(ev.decl, s.res, s.a.bootstrap)
	s.a.useSecrets(s.res)
	s.st.UseGC(s.a.getenv, func(name string) bool { _, ok := s.res.Lookup(name); return ok })
	return ev, nil
}

// evaluation is a config evaluated: the declaration and its JSON as zap-eval
// wrote it, which zap-detect reads.
type evaluation struct {
	decl *declaration.Declaration
	json []byte
}

// detection is one detection pass.
type detection struct {
	obs  *observation.Observations
	json []byte
	// planning is zap-plan already running on json, started as soon as
	// zap-detect answered (detectThenPlan); nil when it wasn't started.
	planning chan stageResult
	stopPlan context.CancelFunc
	// report is the last-run report of the pass being made meanwhile,
	// but for the fields record sets; nil when it isn't.
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

// detect runs zap-detect on the declaration.
func (s *session) detect(ctx context.Context, ev *evaluation) (*detection, error) {
	return s.detectWith(ctx, ev, false)
}

// detectThenPlan runs zap-detect on the declaration and, when it answers,
// starts zap-plan on its observations at once, while zap reads them and
// makes the pass's report: s.plan takes zap-plan's answer. zap-plan is a
// pure function of the observations, so starting it before zap has read
// them changes nothing but the time: observations zap can't read fail the
// pass as before, and zap-plan's answer is dropped.
func (s *session) detectThenPlan(ctx context.Context, ev *evaluation) (*detection, error) {
	return s.detectWith(ctx, ev, true)
}

func (s *session) detectWith(ctx context.Context, ev *evaluation, thenPlan bool) (*detection, error) {
	out, err := s.runDetect(ctx, ev.json, s.a.stageArgs())
	if err != nil {
		return nil, err
	}
	det := &detection{json: out}
	if thenPlan {
		pctx, cancel := context.WithCancel(ctx)
		det.planning, det.stopPlan = make(chan stageResult, 1), cancel
		go func() {
			out, err := s.st.Run(pctx, "zap-plan", det.json)
			det.planning <- stageResult{out, err}
		}()
	}
	// zap-detect writes the declaration it read as it read it: zap, which
	// read and validated those bytes already, doesn't again.
	o, err := observation.ReadKnown(out, ev.decl, ev.json)
	if err != nil {
		if det.planning != nil {
			det.stopPlan()
			<-det.planning
		}
		return nil, failf(1, "zap-detect wrote observations zap can't read: %v", err)
	}
	det.obs = o
	if thenPlan && s.store != nil && !s.conn.unrecorded() {
		det.report = make(chan reportResult, 1)
		go func() {
			r, err := s.newReport(ev, det)
			det.report <- reportResult{r, err}
		}()
	}
	return det, nil
}

// planned is a plan and its JSON as zap-plan wrote it, which zap-exec reads.
type planned struct {
	plan *plan.Plan
	json []byte
}

// plan runs zap-plan on the observations (or takes the answer of the one
// detectThenPlan started) and checks the plan_hash.
func (s *session) plan(ctx context.Context, det *detection) (*planned, error) {
	var out []byte
	var err error
	if det.planning != nil {
		r := <-det.planning
		det.stopPlan()
		det.planning = nil
		out, err = r.out, r.err
	} else {
		out, err = s.st.Run(ctx, "zap-plan", det.json)
	}
	if err != nil {
		return nil, err
	}
	p, err := plan.Read(out)
	if err == nil {
		err = plan.Verify(p, ops.Script)
	}
	if err != nil {
		return nil, failf(1, "zap-plan wrote a plan zap can't read: %v", err)
	}
	return &planned{plan: p, json: out}, nil
}

// resolution resolves the declaration's references from the operator
// environment, as the stages do: for the report's hashes and the wetrun's
// check that every reference is set.
func (s *session) resolution(d *declaration.Declaration) *resolve.Resolution {
	return resolve.Resolve(d, s.a.lookupEnv)
}

// record writes the report of a pass that was rendered with the
// connection's notes: none for a masked host, and never a preview of a plan
// no review can bind.
func (s *session) recordPass(cmd state.Command, preview bool, planHash string, ev *evaluation, det *detection) error {
	if s.conn.unrecorded() {
		return nil
	}
	if s.conn.unbindable() {
		preview, planHash = false, ""
	}
	return s.record(cmd, preview, planHash, ev, det)
}

// lastRunOf is the last-run report of the config's target; none is kept
// for a masked host.
func (s *session) lastRunOf(d *declaration.Declaration) (*state.Loaded, error) {
	if s.conn.unrecorded() {
		return nil, nil
	}
	return s.lastRun(hostKey(d, s.res))
}

// lastRun reads the config's last-run report for host, refusing state that
// isn't the user's own.
func (s *session) lastRun(h string) (*state.Loaded, error) {
	if r := s.read; r != nil && r.host == h {
		s.read = nil
		return r.loaded, nil
	}
	l, err := s.store.Load(s.abs, h)
	if err != nil {
		return nil, stateError(err)
	}
	return l, nil
}

// record writes the report of a pass.
func (s *session) record(cmd state.Command, preview bool, planHash string, ev *evaluation, det *detection) error {
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
		return failf(1, "state: %v", err)
	}
	// What state.NewReport makes of a Pass's command, preview, plan_hash
	// and time.
	r.Command, r.Preview, r.PlanHash = cmd, preview, planHash
	r.Time = s.a.now().UTC().Format(time.RFC3339)
	// The key the report is looked up by (hostKey), which is the host
	// zap-detect resolved and connected to.
	if err := s.store.Save(s.abs, hostKey(&det.obs.Declaration, s.res), r); err != nil {
		return stateError(err)
	}
	return nil
}

// newReport makes the report of a pass, but for its command, preview,
// plan_hash and time, which record sets. The references resolve against
// the declaration zap-detect read: the one evaluated (then the resolution
// load made is the one), as it always is from this zap's stages.
func (s *session) newReport(ev *evaluation, det *detection) (*state.Report, error) {
	res := s.res
	if res == nil || !reflect.DeepEqual(*ev.decl, det.obs.Declaration) {
		res = s.resolution(&det.obs.Declaration)
	}
	return state.NewReport(state.Pass{Time: s.a.now(), Obs: det.obs, Hasher: resolve.NewHasher(res)})
}

// verdictCode is 1 when a pass couldn't establish a verdict: a resource it
// couldn't read, or a reference unset.
func verdictCode(o *observation.Observations) int {
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

// stageArgs are the flags zap-detect and zap-exec take from zap's own:
// --bootstrap.
func (a *app) stageArgs() []string {
	if a.bootstrap {
		return []string{"--bootstrap"}
	}
	return nil
}
