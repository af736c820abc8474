package zapcli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/zap-go/zap/internal/deploy"
	"github.com/zap-go/zap/internal/escape"
	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/lockhash"
	"github.com/zap-go/zap/internal/pass"
	"github.com/zap-go/zap/internal/render"
	"github.com/zap-go/zap/internal/resolve"
	"github.com/zap-go/zap/internal/review"
	"github.com/zap-go/zap/internal/stages"
	"github.com/zap-go/zap/internal/state"
	"github.com/zap-go/zap/pkg/cliout"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/deployplan"
	"github.com/zap-go/zap/pkg/events"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// deployOptions are zap deploy's flags.
type deployOptions struct {
	wetrun, json bool
	// scripts prints Zap's own scripts whole in the plan's text, where it
	// names them by digest; it changes no plan.
	scripts bool
	expect  string
	flags   deployplan.Flags
}

// deployCommand is zap deploy [--wetrun] [--expect-plan HASH] [--json]
// [--force] [--skip-build] [--skip-preflight] [--bootstrap] [CONFIG].
func (a *app) deployCommand(f *flagSets) *ffcli.Command {
	fs := f.target("zap deploy")
	var o deployOptions
	fs.BoolVar(&o.wetrun, "wetrun", false, "ship the release: execute the deploy plan you reviewed (without it, deploy only previews)")
	fs.StringVar(&o.expect, "expect-plan", "", "execute only if the deploy plan's plan_hash is exactly `HASH`, all 64 hex characters (with --wetrun)")
	f.jsonFlag(fs, "with --wetrun, stream the run's events as JSON lines on stdout ("+events.Format+"); without, write the deploy preview as one JSON document ("+cliout.DeployFormat+", docs/protocol.md); a refusal or an error included",
		jsonMode{format: cliout.DeployFormat, command: "deploy", stream: func() bool { return o.wetrun }})
	fs.BoolVar(&o.flags.Force, "force", false, "ship a tree with uncommitted changes or untracked files (as <hash>-dirty-<id>), or the version already live")
	fs.BoolVar(&o.flags.SkipBuild, "skip-build", false, "leave out the build step")
	fs.BoolVar(&o.flags.SkipPreflight, "skip-preflight", false, "skip the drift preflight (the convergence pass before shipping)")
	fs.BoolVar(&o.scripts, "scripts", false, "print Zap's own release, install, rollback and gate scripts whole in the plan's text, where it names them by digest (the plan and its plan_hash are the same either way)")
	return &ffcli.Command{
		Name:       "deploy",
		ShortUsage: "zap deploy [--wetrun] [--expect-plan HASH] [--json] [--force] [--skip-build] [--skip-preflight] [--scripts] [CONFIG]",
		ShortHelp:  "preview a release of the app; with --wetrun, ship it",
		LongHelp: `Run from inside the app's git checkout. Without --wetrun: reads the
checkout and the target's current release and prints the deploy plan, every
step with its command, script or URL, and its plan_hash, recorded as this
host's deploy preview (exit 0). With --wetrun: plans again and executes only
the plan you reviewed (--expect-plan, or the deploy preview), after the drift
preflight (the convergence pass: exit 2 when the host drifted from its
config; a stale or unverifiable zap.lock entry refuses it before anything
connects). Exit status: 0 shipped and healthy, or already at this version;
1 a step failed (after any rollback); 2 refused or an input error.

--json: without --wetrun, stdout carries one document (zap.cli-deploy/1):
the deploy plan, its plan_hash, the version and target it previews and
zap.lock's standing, recorded as the deploy preview as the text is; an
error is that document's error, with the same exit status. With --wetrun,
stdout carries the run's events (zap.events/1) instead of the text report;
a wetrun that ends before its first event (a refusal, an error, a release
already live) leaves stdout empty, its text report and error on stderr.`,
		FlagSet: fs,
		Exec: onConfig(func(ctx context.Context, config string) error {
			o.flags.Bootstrap = a.bootstrap
			o.json = a.json != nil
			if err := checkExpectPlan(fs, o.expect, o.wetrun); err != nil {
				return err
			}
			return a.cmdDeploy(ctx, config, o)
		}),
	}
}

// deployRun is one zap deploy past evaluation.
type deployRun struct {
	a        *app
	s        *session
	ev       *pass.Evaluation
	o        deployOptions
	dir      string
	previews *state.Store
	host     string
}

// cmdDeploy is zap deploy, dry or wet.
func (a *app) cmdDeploy(ctx context.Context, config string, o deployOptions) error {
	s, err := a.open(config, true)
	if err != nil {
		return err
	}
	ev, err := s.Load(ctx)
	if err != nil {
		return err
	}
	switch {
	case ev.Decl.Deploy == nil:
		return exit.Fail(2, "the config declares no deploy block (zap.deploy): there is nothing to deploy")
	case ev.Decl.Target.Local:
		return exit.Fail(2, "zap deploy ships to a remote host, and the config's target is the local machine")
	}
	dir, err := os.Getwd()
	if err != nil {
		return exit.Failf(1, "the working directory: %w", err)
	}
	a.maskDeploy(ev.Decl, s.Res)
	d := &deployRun{a: a, s: s, ev: ev, o: o, dir: dir, host: pass.HostKey(ev.Decl, s.Res)}
	if s.Store != nil {
		d.previews = s.Store
	}
	if o.wetrun {
		return d.wetrun(ctx)
	}
	return d.dry(ctx)
}

// dry is zap deploy without --wetrun: the plan shown, or under --json
// written as one zap.cli-deploy/1 document, and recorded as this host's
// deploy preview either way.
func (d *deployRun) dry(ctx context.Context) error {
	w := d.a.stdout
	if d.o.json {
		// The document says what the text's lines say: the lock's
		// standing, the note of a preview not recorded.
		w = io.Discard
	}
	rep, err := d.lockGate(w)
	if err != nil {
		return err
	}
	p, err := d.plan(ctx)
	if err != nil {
		return err
	}
	if !d.o.json {
		fmt.Fprint(w, deploy.Text(&deploy.Made{Plan: p, Unbindable: strings.Join(d.unbindable(), ", "), Scripts: d.o.scripts}))
	}
	if err := d.record(w, p); err != nil {
		return err
	}
	if d.o.json {
		return d.doc(p, rep)
	}
	return nil
}

// doc writes a dry run's plan as its --json document; rep is the lock's
// standing the gate read, nil when it read none.
func (d *deployRun) doc(p *deployplan.Plan, rep *lockhash.Report) error {
	raw, err := p.Encode()
	if err != nil {
		return exit.Failf(1, "encode the deploy plan: %w", err)
	}
	doc := &cliout.Deploy{Format: cliout.DeployFormat, Plan: raw, PlanHash: p.Hash,
		Version: p.Source.Version, Target: p.Target.Host, Live: p.Live.Release, AlreadyLive: deploy.AlreadyLive(p),
		Unbindable: d.unbindable(), Unrecorded: p.Hash != "" && d.previews == nil}
	if rep != nil {
		doc.Lock = lockDoc(&render.LockView{Report: rep, Tracked: lockhash.Tracked(d.ev.Decl)})
	}
	return d.a.writeDoc(doc)
}

// plan runs zap-deploy plan on the declaration.
func (d *deployRun) plan(ctx context.Context) (*deployplan.Plan, error) {
	args := []string{"plan", "--dir", d.dir, "--lock", d.s.Lock}
	for _, f := range []struct {
		on   bool
		name string
	}{{d.o.flags.Force, "--force"}, {d.o.flags.SkipBuild, "--skip-build"}, {d.o.flags.SkipPreflight, "--skip-preflight"}, {d.o.flags.Bootstrap, "--bootstrap"}} {
		if f.on {
			args = append(args, f.name)
		}
	}
	out, err := d.s.Stages.Run(ctx, "zap-deploy", d.ev.JSON, args...)
	if err != nil {
		return nil, err
	}
	p, err := deployplan.Read(out)
	if err == nil && p.Hash != "" {
		err = deployplan.Verify(p, deploy.Hashed()...)
	}
	if err != nil {
		return nil, exit.Failf(1, "zap-deploy wrote a deploy plan zap can't read: %w", err)
	}
	return p, nil
}

// record records p as this host's deploy preview when it has a hash.
func (d *deployRun) record(w io.Writer, p *deployplan.Plan) error {
	if p.Hash == "" {
		return nil
	}
	if d.previews == nil {
		fmt.Fprintln(w, "note: no state directory, so no deploy preview was recorded: only --expect-plan binds a wetrun")
		return nil
	}
	if err := d.previews.RecordDeployPreview(d.s.Abs, d.host, p.Hash); err != nil {
		return pass.StateError(err)
	}
	return nil
}

// text is where the wetrun's text report goes: stderr under --json.
func (d *deployRun) text() io.Writer {
	if d.o.json {
		return d.a.stderr
	}
	return d.a.stdout
}

// maskedDomain names the secret references deploy.health.domain goes
// through: a plan of it names no one URL, so no review can bind it.
func (d *deployRun) maskedDomain() []string {
	decl := d.ev.Decl
	if decl.Deploy == nil || decl.Deploy.Health == nil {
		return nil
	}
	var masked []string
	for _, n := range decl.Deploy.Health.Domain.Refs() {
		v, _ := d.a.lookupEnv(n)
		if resolve.Secret(decl, n, v) && !slices.Contains(masked, n) {
			masked = append(masked, n)
		}
	}
	return masked
}

// unsetDeployRefs names the deploy block's references (its health
// domain's) that are unset or empty: the config's own resolution, which
// checkWetrun holds to being set, reads the target and the resources alone.
func (d *deployRun) unsetDeployRefs() []string {
	var unset []string
	for _, n := range d.ev.Decl.Deploy.Refs() {
		if v, _ := d.a.lookupEnv(n); v == "" {
			unset = append(unset, n)
		}
	}
	return unset
}

// unbindable names the masked references the host, connecting users or
// health domain go through, nil for none.
func (d *deployRun) unbindable() []string {
	if m := append(append([]string{}, d.s.Conn.Masked...), d.maskedDomain()...); len(m) > 0 {
		return m
	}
	return nil
}

// maskDeploy adds the secrets only the deploy block references (its
// health domain, its build's variables) to what every output masks: the
// config's own resolution reads the target and the resources alone.
func (a *app) maskDeploy(decl *declaration.Declaration, res *resolve.Resolution) {
	refs := append([]observation.Reference{}, res.References...)
	extra := false
	for _, n := range decl.Deploy.Refs() {
		if _, seen := res.Lookup(n); seen {
			continue
		}
		v, _ := a.lookupEnv(n)
		secret := resolve.Secret(decl, n, v)
		extra = extra || secret
		refs = append(refs, observation.Reference{Name: n, Secret: secret})
	}
	if extra {
		a.useSecrets(resolve.Recorded(refs, a.lookupEnv))
	}
}

// wetrun is zap deploy --wetrun.
func (d *deployRun) wetrun(ctx context.Context) error {
	if err := checkWetrun(d.s.Session); err != nil {
		return err
	}
	if m := d.maskedDomain(); len(m) > 0 {
		return exit.Fail(2, fmt.Sprintf("deploy.health.domain goes through the secret reference %s, so no plan of it names one URL and a wetrun can't bind to a review",
			strings.Join(m, ", ")),
			"reference the health domain through a plain variable (zap.unmask('NAME') if the name reads as a secret's)")
	}
	if u := d.unsetDeployRefs(); len(u) > 0 {
		return exit.Fail(2, fmt.Sprintf("deploy.health.domain: the reference %s is unset or empty: a wetrun starts only when every variable the config references is set", strings.Join(u, ", ")),
			"provide it (--env-file or the environment) and re-run")
	}
	if _, err := d.lockGate(nil); err != nil {
		return err
	}
	if !d.o.flags.Force {
		src, err := deploy.ReadSource(ctx, d.dir)
		if err != nil {
			return exit.InWorld(err)
		}
		if src.Tree == deployplan.Dirty {
			return exit.Fail(2, "the checkout has uncommitted changes or untracked files: the release would ship them under the commit's version",
				"commit them, or deploy the tree as it is with --force (its version gets -dirty-<id>)")
		}
	}
	p, err := d.plan(ctx)
	if err != nil {
		return err
	}
	t := d.text()
	switch {
	case deploy.AlreadyLive(p):
		// Under --json the text is on stderr and stdout stays empty:
		// a release already live ends before the run's first event.
		fmt.Fprint(t, deploy.Text(&deploy.Made{Plan: p, Scripts: d.o.scripts}))
		return nil
	case p.Hash == "":
		return exit.Fail(2, "the host, connecting user or health domain resolves through a masked reference: no review can bind this deploy")
	case d.o.expect != "" && d.o.expect != p.Hash:
		return d.refuse(p, render.ReasonExpect)
	}
	var preview *state.DeployPreview
	if d.o.expect == "" {
		if d.previews != nil {
			if preview, err = d.previews.LoadDeployPreview(d.s.Abs, d.host); err != nil {
				return pass.StateError(err)
			}
		}
		reason := ""
		switch {
		case preview == nil:
			reason = render.ReasonNoPreview
		case preview.Hash != p.Hash:
			reason = render.ReasonChanged
		}
		if reason != "" {
			tty, ok := d.a.terminal()
			if !ok || d.o.json {
				return d.refuse(p, reason)
			}
			yes, err := d.ask(tty, p, reason)
			if err != nil {
				return exit.InWorld(err)
			}
			if !yes {
				return d.decline(p)
			}
			// Reviewed at the terminal: any recorded preview is
			// withdrawn below, as a bound wetrun's is.
		}
	}
	if err := d.preflight(ctx, p); err != nil {
		return err
	}
	if preview != nil {
		if err := preview.Claim(); err != nil {
			if errors.Is(err, state.ErrClaimLost) {
				return exit.Fail(2, "another wetrun claimed this deploy preview first: one preview covers one wetrun, so this one shipped nothing",
					"preview again (zap deploy), then run zap deploy --wetrun")
			}
			return pass.StateError(err)
		}
	}
	return d.execute(ctx, p)
}

// lockGate is zap.lock's part of the gates, when the drift preflight will
// check: a stale or unverifiable tracked pin refuses a wetrun (exit 2)
// before anything connects, as apply refuses it; a dry run (w) says its
// wetrun will be refused. It returns the standing it read, nil for none.
func (d *deployRun) lockGate(w io.Writer) (*lockhash.Report, error) {
	if d.o.flags.SkipPreflight || len(d.ev.Decl.Resources) == 0 {
		return nil, nil
	}
	rep, err := d.s.Standing(d.ev)
	if err != nil {
		return nil, err
	}
	err = pass.RefuseStaleFor(rep, "a deploy's drift preflight passes", "converge with zap apply --wetrun, then deploy")
	if err == nil || w == nil {
		return rep, err
	}
	for _, st := range rep.Tracked {
		if st.Class == lockhash.Stale || st.Class == lockhash.Unverifiable {
			fmt.Fprintf(w, "warning: zap.lock: the entry of %s (%s) is %s, so a wetrun's drift preflight refuses this deploy: %s\n",
				escape.Line(st.ID), st.Kind, st.Class, escape.Line(st.Why()))
		}
	}
	return rep, nil
}

// refuse shows the plan under the REFUSED banner, records it as the
// preview, and exits 2 with nothing built or uploaded.
func (d *deployRun) refuse(p *deployplan.Plan, reason string) error {
	t := d.text()
	fmt.Fprintf(t, "%s — %s: a wetrun ships only the deploy plan you reviewed\n", render.BannerRefused, reason)
	if reason == render.ReasonExpect {
		fmt.Fprintf(t, "--expect-plan named %s\n", escape.Line(d.o.expect))
	}
	fmt.Fprintln(t, "nothing was built or uploaded. The plan below is now the deploy preview: run zap deploy --wetrun again to ship it if nothing moves, or pass --expect-plan <plan_hash>")
	return d.showRecorded(t, p)
}

// decline shows the plan under the DECLINED banner, records it as the
// preview, and exits 2 with nothing built or uploaded.
func (d *deployRun) decline(p *deployplan.Plan) error {
	t := d.text()
	fmt.Fprintf(t, "%s — the answer was not the first eight characters of this plan's plan_hash\n", render.BannerDeclined)
	fmt.Fprintln(t, "nothing was built or uploaded. The plan below is now the deploy preview: run zap deploy --wetrun again to ship it if nothing moves")
	return d.showRecorded(t, p)
}

// showRecorded shows the plan a wetrun refused or was declined, records it
// as the preview and exits 2; under --json the text goes to stderr and
// stdout stays empty, the run having no events.
func (d *deployRun) showRecorded(t io.Writer, p *deployplan.Plan) error {
	fmt.Fprintln(t)
	fmt.Fprint(t, deploy.Text(&deploy.Made{Plan: p, Scripts: d.o.scripts}))
	if err := d.record(t, p); err != nil {
		return err
	}
	return exit.Reported(2)
}

// ask shows the plan with no review on the terminal under the UNREVIEWED
// banner and asks zap apply's question (review.AskHash) for the first
// eight characters of its plan_hash.
func (d *deployRun) ask(tty *os.File, p *deployplan.Plan, reason string) (bool, error) {
	out := d.a.stderr
	fmt.Fprintf(out, "UNREVIEWED — %s\n\n", reason)
	return review.AskHash(tty, out, d.a.flushOutputs, p.Hash, reason, func(w io.Writer) {
		fmt.Fprint(w, deploy.Text(&deploy.Made{Plan: p, Scripts: d.o.scripts}))
	})
}

// preflight is the drift preflight: the convergence pass against the
// config, recorded as the last-run report (no preview). Any change but a
// pipeline's or a service's that only its trigger fires, and any held
// resource, is drift: exit 2 before anything is built.
func (d *deployRun) preflight(ctx context.Context, p *deployplan.Plan) error {
	if p.Preflight.State != deployplan.PreflightChecks {
		return nil
	}
	if err := d.s.ReadPins(ctx, d.ev); err != nil {
		return err
	}
	det, err := d.s.DetectThenPlan(ctx, d.ev)
	if err != nil {
		return err
	}
	pl, err := d.s.Plan(ctx, det)
	if err != nil {
		return err
	}
	if err := d.s.RecordPass(state.CmdDetect, false, "", d.ev, det); err != nil {
		return err
	}
	drift := driftOf(pl.Plan)
	if len(drift) == 0 {
		return nil
	}
	return exit.Fail(2, "drift preflight: the host has drifted from its config, so nothing was shipped:\n"+strings.Join(drift, "\n"),
		"review the changes with zap apply, converge with zap apply --wetrun, then deploy again")
}

// driftOf lists what in a convergence plan is drift to a deploy: every
// change but a pipeline's and a service's whose only change is the restart
// or reload its trigger fires from sources that aren't drift themselves,
// and every held resource.
func driftOf(p *plan.Plan) []string {
	var out []string
	quiet := map[string]bool{}
	for _, c := range p.Changes {
		switch {
		case c.Type == declaration.KindPipeline || c.Type == plan.KindZap:
			quiet[c.ID] = true
			continue
		case c.Type == declaration.KindService && c.Action == plan.Update && len(c.Drift) == 0 &&
			c.Trigger != nil && c.Trigger.Pending == "" && len(c.Trigger.By) > 0 && allQuiet(quiet, c.Trigger.By):
			quiet[c.ID] = true
			continue
		}
		out = append(out, fmt.Sprintf("  %s (%s): %s", escape.Line(c.ID), c.Type, c.Action))
	}
	for _, h := range p.Held {
		out = append(out, fmt.Sprintf("  %s: held (%s)", escape.Line(h.ID), escape.Line(h.Reason)))
	}
	return out
}

func allQuiet(quiet map[string]bool, ids []string) bool {
	for _, id := range ids {
		if !quiet[id] {
			return false
		}
	}
	return true
}

// execute runs zap-deploy run on the plan, its events passed on under
// --json and said as lines of text otherwise.
func (d *deployRun) execute(ctx context.Context, p *deployplan.Plan) error {
	doc, err := p.Encode()
	if err != nil {
		return exit.Failf(1, "encode the deploy plan: %w", err)
	}
	text := &deployText{w: d.a.stdout}
	args := []string{"run", "--dir", d.dir}
	var status *deployStatus
	if !d.o.json {
		// The deploy under way on stderr, as apply's wetrun shows a
		// change: drawn live on a terminal, else as plain lines.
		status = &deployStatus{p: render.NewProgress(io.Discard), id: p.Source.Version}
		if tty, width, ok := d.a.statusScreen(); ok {
			status.p.Live(tty, width, d.a.maskString, d.a.now)
			args = append(args, "--progress")
		} else {
			status.plain = true
			status.p.Plain(d.a.stderr, d.a.now)
		}
		defer status.p.Close()
	}
	err = d.s.Stages.Stream(ctx, "zap-deploy", doc, func(line []byte) error {
		e, err := events.Read(line)
		if err != nil {
			return exit.Failf(1, "zap-deploy wrote an event zap can't read: %w", err)
		}
		if d.o.json {
			d.a.json.started = true
			_, err := d.a.stdout.Write(append(maskJSON(d.a.masker, line), '\n'))
			return err
		}
		status.around(e, func() { text.event(e) })
		return nil
	}, args...)
	d.warningsOf(err)
	return err
}

// deployStatus shows a deploy's step under way as zap apply's wetrun
// shows a change (render.Progress): the deploy is its one change, named by
// the version. On a terminal it is drawn on one line, redrawn with the
// step's elapsed time and its last output line (zap-deploy run
// --progress), and erased before each line of the text report, then drawn
// again; elsewhere (plain) it is apply's plain lines: started when the
// deploy starts, and a step still running after 10 seconds and every 30
// after.
type deployStatus struct {
	p     *render.Progress
	id    string
	plain bool
}

// around says e on the status and writes its report lines (write), with
// a line drawn on the terminal erased; with no status (nil) it only writes
// them.
func (s *deployStatus) around(e *events.Event, write func()) {
	if s == nil {
		write()
		return
	}
	as := *e
	as.ID = s.id
	if s.plain {
		switch e.Event {
		case events.RunStarted:
			s.p.Event(&events.Event{Event: events.ChangeStarted, ID: s.id, Type: "deploy"})
		case events.StepStarted, events.StepOK, events.StepFailed, events.StepSkipped:
			s.p.Event(&as)
		case events.RunOK, events.RunFailed:
			s.p.Event(&events.Event{Event: events.ChangeOK, ID: s.id, Type: "deploy"})
		}
		write()
		return
	}
	if e.Event == events.StepOutput {
		s.p.Event(&as)
		return
	}
	s.p.Event(&events.Event{Event: events.ChangeOK, ID: s.id, Type: "deploy"})
	write()
	if e.Event == events.RunOK || e.Event == events.RunFailed {
		return
	}
	s.p.Event(&events.Event{Event: events.ChangeStarted, ID: s.id, Type: "deploy"})
	if e.Event == events.StepStarted {
		s.p.Event(&as)
	}
}

// warningsOf prints the warning lines of a failed zap-deploy run (a failed
// rollback, the repairs of an unfinished deploy) as warnings, ahead of the
// error, and leaves the error only its own lines: a stage that fails has
// its whole stderr made into its error otherwise.
func (d *deployRun) warningsOf(err error) {
	var se *stages.Error
	if !errors.As(err, &se) || se.Stage != "zap-deploy" {
		return
	}
	var rest []string
	for _, l := range strings.Split(se.Msg, "\n") {
		if strings.HasPrefix(l, "warning: ") {
			fmt.Fprintln(d.a.stderr, l)
			continue
		}
		rest = append(rest, l)
	}
	if len(rest) > 0 {
		se.Msg = strings.Join(rest, "\n")
	}
}

// deployText says a deploy's events as lines of the text report. It keeps
// the summary of the step under way: a step's error, in the engine's words
// (execute.Runner.Step: "SUMMARY failed: REASON", "SUMMARY exited N"), is
// said under the step's line without it.
type deployText struct {
	w       io.Writer
	summary string
}

// event says one event of a deploy as a line of the text report. A failed
// step's error carries its triage code as apply's failed change does
// (render.Coded).
func (t *deployText) event(e *events.Event) {
	w := t.w
	switch e.Event {
	case events.StepStarted:
		t.summary = e.Summary
		fmt.Fprintf(w, "%d. %s\n", e.Step, escape.Line(e.Summary))
	case events.StepFailed:
		fmt.Fprintf(w, "   failed: %s\n", render.Coded(escape.Indent(t.reason(e.Error), "   "), e.Code))
		deployOutputText(w, e.Output)
	case events.StepSkipped:
		fmt.Fprintf(w, "   skipped: %s\n", escape.Line(e.Reason))
	case events.StepOK:
		if back, ok := strings.CutPrefix(t.summary, "rollback to "); ok && e.ID == "rollback" {
			fmt.Fprintf(w, "   ok: rolled back to %s: current names it again\n", escape.Line(back))
		}
	case events.RunOK:
		fmt.Fprintln(w, "deployed")
	case events.RunFailed:
		fmt.Fprintln(w, "deploy failed")
	}
}

// reason is a step's error without the step's summary ahead of it.
func (t *deployText) reason(msg string) string {
	if t.summary == "" {
		return msg
	}
	if r, ok := strings.CutPrefix(msg, t.summary+" failed: "); ok {
		return r
	}
	if r, ok := strings.CutPrefix(msg, t.summary+" "); ok {
		return r
	}
	return msg
}

// deployOutputText writes the last lines of a failed step's output under
// it, each as "| line", as zap apply shows a failed step's: the restart's
// or the release script's own words on why it failed.
func deployOutputText(w io.Writer, output string) {
	if strings.TrimSpace(output) == "" {
		return
	}
	lines := escape.Block(output)
	if len(lines) > render.OutputTail {
		fmt.Fprintf(w, "   the last %d of its %d output lines:\n", render.OutputTail, len(lines))
		lines = lines[len(lines)-render.OutputTail:]
	} else {
		fmt.Fprintln(w, "   its output:")
	}
	for _, l := range lines {
		fmt.Fprintf(w, "   | %s\n", l)
	}
}
