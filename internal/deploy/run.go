package deploy

import (
	"bytes"
	"context"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/mask"
	"github.com/zap-go/zap/pkg/deployplan"
	"github.com/zap-go/zap/pkg/events"
	"github.com/zap-go/zap/pkg/plan"
)

// Limits of a wetrun's steps.
const (
	buildLimit   = 30 * time.Minute
	scriptLimit  = 30 * time.Minute
	restartLimit = 5 * time.Minute
	// MaxArchive bounds the release archive, which is held in memory while
	// it uploads.
	MaxArchive = 1 << 30
)

// Runner runs one deploy plan. Every step runs through the engine zap
// apply's steps run through (execute.Runner.Step): the build on the
// operator's machine (Local), the upload, the release script, the restart,
// the rollback and the gate's record on the target (Target), the tarball
// and the health checks as Zap's own work here; so the events, the
// step_output of a running step (Live), the masking and the failed step's
// error and output are apply's.
type Runner struct {
	Plan *deployplan.Plan
	// Dir is the checkout (its top level is where build and tarball run).
	Dir string
	// Target is the plan's target (over SSH, internal/sshhost's Exec);
	// Local is this machine, where the build runs (internal/localops).
	Target, Local execute.Host
	// Events receives the event lines; Warn the warnings of the text
	// report (repairs, a failed prune) that no event holds.
	Events io.Writer
	Warn   func(string)
	// Mask takes the plan's secrets out of every error and output
	// (RunMasker); Live writes step_output events while a step runs.
	Mask *mask.Masker
	Live bool
	// URLs are the plan's check URLs, resolved (ResolveChecks).
	URLs URLs
	// Health polls a check at its resolved URL (nil: HTTPS from this
	// machine, Poll).
	Health func(ctx context.Context, url string, c *deployplan.Check, ready bool) Outcome

	here, there *execute.Runner
	step        int
	// werr is the first event that couldn't be written.
	werr error
}

// Failure is a step that failed: the error its event carries.
type Failure struct {
	Step string
	Err  error
}

func (f *Failure) Error() string { return f.Step + ": " + f.Err.Error() }
func (f *Failure) Unwrap() error { return f.Err }

// The names of the deploy's scripts as operations (execute.ZapOp).
const (
	opInstall  = "install"
	opRelease  = "release"
	opRestart  = "restart"
	opRollback = "rollback"
	opGate     = "gate"
	opRead     = "read"
	opNeeds    = "needs"
)

// Run runs the plan's steps and returns nil when the release went live and
// is healthy, or the first failure (after the rollback it caused).
func (r *Runner) Run(ctx context.Context) error {
	p := r.Plan
	ctx = execute.WithMask(ctx, r.Mask)
	r.here = &execute.Runner{Host: r.Local, Events: r.Events, Mask: r.Mask, Live: r.Live}
	r.there = &execute.Runner{Host: r.Target, Events: r.Events, Mask: r.Mask, Live: r.Live}
	r.emit(events.Event{Event: events.RunStarted, Format: events.Format, PlanHash: p.Hash})
	err := r.steps(ctx)
	if err != nil {
		r.emit(events.Event{Event: events.RunFailed, Failed: 1})
		return err
	}
	r.emit(events.Event{Event: events.RunOK, OK: 1})
	return r.werr
}

func (r *Runner) steps(ctx context.Context) error {
	p := r.Plan
	top, err := git(ctx, r.Dir, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return err
	}
	top = strings.TrimSpace(top)
	if p.Steps.Build != "" {
		if err := r.do(ctx, r.here, "build", buildStep(top, p.Steps.Build)); err != nil {
			return err
		}
	}
	var archive []byte
	if err := r.do(ctx, r.here, "tarball", &execute.PreparedStep{Summary: "tarball: " + strings.Join(p.Steps.Artifacts, " "), Local: func(ctx context.Context) error {
		archive, err = tarball(ctx, top, p.Steps.Artifacts)
		return err
	}}); err != nil {
		return err
	}
	sum := sha512.Sum512(archive)
	digest := hex.EncodeToString(sum[:])
	if err := r.do(ctx, r.there, "upload", &execute.PreparedStep{Summary: "upload: " + p.Path + "/" + p.Steps.Upload.Name, Local: func(ctx context.Context) error {
		// The archive is the operation's payload: its raw bytes follow
		// the framed arguments on stdin (ops.StreamInput).
		body := &execute.Body{From: bytes.NewReader(archive), Size: int64(len(archive))}
		_, err := opWith(ctx, r.Target, &execute.ZapOp{Name: opInstall, Script: Install, Args: []string{p.Path, p.Steps.Upload.Name, digest},
			Privilege: plan.Login, Timeout: scriptLimit, Payload: body})
		return err
	}}); err != nil {
		return err
	}
	archive = nil
	swapped := false
	if err := r.do(ctx, r.there, "release", &execute.PreparedStep{Summary: "release script on " + p.Target.Host, Local: func(ctx context.Context) error {
		var err error
		swapped, err = r.release(ctx, digest)
		return err
	}}); err != nil && !swapped {
		return err
	}
	return r.afterSwap(ctx)
}

// buildStep is the build: the command in a shell of its own (set -e) in the
// checkout's top level, on this machine, under buildLimit.
func buildStep(top, command string) *execute.PreparedStep {
	return &execute.PreparedStep{Summary: "build: " + command,
		Command: &execute.Command{Cwd: top, Script: execute.Script("", nil, "set -e\n"+command), Timeout: buildLimit}}
}

// afterSwap restarts and checks the live release, rolling back on a
// failure.
func (r *Runner) afterSwap(ctx context.Context) error {
	p := r.Plan
	var failed error
	if p.Steps.Restart != "" {
		failed = r.do(ctx, r.there, "restart", r.restartStep())
	}
	if failed == nil && p.Steps.Health != nil {
		failed = r.check(ctx, "health", r.URLs.Health, p.Steps.Health, false)
	}
	if failed == nil && p.Steps.Ready != nil {
		failed = r.check(ctx, "ready", r.URLs.Ready, p.Steps.Ready, true)
	}
	if failed == nil {
		r.gate(ctx, p.Source.Version, GatePassed)
		return nil
	}
	r.rollback(ctx)
	return failed
}

// check runs the health check (id health) or the readiness check (ready)
// at its resolved url as a step whose summary names the url. The step's
// error says what the url answered without naming it again, as the engine
// puts the summary ahead of it; the run's failure (health: URL answered
// ...) names it once too. A readiness check the app doesn't serve (404)
// is skipped with a warning.
func (r *Runner) check(ctx context.Context, id, url string, c *deployplan.Check, ready bool) error {
	label := "health: "
	if ready {
		label = "readiness: "
	}
	var o Outcome
	polled := false
	err := r.do(ctx, r.here, id, &execute.PreparedStep{Summary: label + url, Local: func(ctx context.Context) error {
		o, polled = r.poll(ctx, url, c, ready), true
		if ready && o.Status == 404 {
			reason := "the app doesn't serve /ready (404): the deploy goes on on liveness alone"
			r.Warn(reason)
			return &execute.SkipError{Reason: reason}
		}
		return o.stepErr()
	}})
	var skip *execute.SkipError
	switch {
	case errors.As(err, &skip):
		return nil
	case err != nil && polled && o.Err() != nil:
		o.URL = url
		return &Failure{Step: id, Err: o.Err()}
	}
	return err
}

// restartStep is the restart: the plan's restart command, run as root on
// the target (under sudo -n unless the connecting user is root).
func (r *Runner) restartStep() *execute.PreparedStep {
	return &execute.PreparedStep{Summary: "restart: " + r.Plan.Steps.Restart,
		Op: &execute.ZapOp{Name: opRestart, Script: r.Plan.Steps.Restart, Privilege: plan.Root, Timeout: restartLimit}}
}

// gate records the verdict of a release's restart and checks in
// deploy_info.json, while current names it (gate.sh): the next deploy's
// plan reads it, so a release that never passed isn't live to it. A
// verdict that can't be recorded is a warning: the gate stays pending, and
// the next deploy ships the release again.
func (r *Runner) gate(ctx context.Context, version, verdict string) {
	out, err := op(ctx, r.Target, opGate, Gate, restartLimit, r.Plan.Path, version, verdict)
	if skipped(err) {
		r.Warn("the gate's verdict on " + version + " (" + verdict + ") was not recorded: " + strings.TrimPrefix(lastLines(out, 1), "skip: "))
		return
	}
	if err != nil {
		r.Warn("the gate's verdict on " + version + " (" + verdict + ") was not recorded in deploy_info.json: " + err.Error())
	}
}

// do runs one step through on, as the run's next.
func (r *Runner) do(ctx context.Context, on *execute.Runner, id string, s *execute.PreparedStep) error {
	r.step++
	err, werr := on.Step(ctx, id, r.step, s)
	if werr != nil && r.werr == nil {
		r.werr = werr
	}
	if err != nil {
		return &Failure{Step: id, Err: err}
	}
	return nil
}

// emit writes an event of the run's own: its start and end, a rollback
// with nothing to return to. A write that fails is kept as the run's
// error (werr).
func (r *Runner) emit(e events.Event) {
	line, err := e.Marshal()
	if err == nil {
		_, err = r.Events.Write(append(line, '\n'))
	}
	if err != nil && r.werr == nil {
		r.werr = fmt.Errorf("write the %s event: %w", e.Event, err)
	}
}

// op runs one of the deploy's scripts on h as the connecting user
// (execute.Host.Op), its arguments on stdin ahead of it (ops.Input), under
// limit, and returns what it printed on stdout. A script that stopped
// itself ("stop: REASON", then a non-zero exit) fails with its reason
// (stopped), its exit and the rest of its output kept.
func op(ctx context.Context, h execute.Host, name, script string, limit time.Duration, args ...string) (string, error) {
	return opWith(ctx, h, &execute.ZapOp{Name: name, Script: script, Args: args, Privilege: plan.Login, Timeout: limit})
}

// opWith is op of an operation as given (one with a payload: the upload).
func opWith(ctx context.Context, h execute.Host, o *execute.ZapOp) (string, error) {
	ctx, c := execute.WithCapture(ctx)
	err := h.Op(ctx, o)
	out := c.Stdout.String()
	var ee *execute.ExitError
	if errors.As(err, &ee) {
		if reason := stopLine(out + "\n" + c.Stderr.String()); reason != "" {
			err = &stopped{reason: reason, exit: &execute.ExitError{Status: ee.Status, Output: unmarked(ee.Output)}}
		}
	}
	return out, err
}

// stopped is a script of the deploy's that stopped itself: its reason,
// and how it exited (Classify reads the exit and output through Unwrap).
type stopped struct {
	reason string
	exit   *execute.ExitError
}

func (e *stopped) Error() string { return e.reason }
func (e *stopped) Unwrap() error { return e.exit }

// skipped says whether err is a script's exit 3: it skipped its work, and
// said why on its last line ("skip: REASON").
func skipped(err error) bool {
	var ee *execute.ExitError
	return errors.As(err, &ee) && ee.Status == 3
}

// stopLine is the reason of the first "stop: " line of s, "" for none.
func stopLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if reason, ok := strings.CutPrefix(l, "stop: "); ok {
			return reason
		}
	}
	return ""
}

// unmarked is a script's output without the lines it marks for the deploy
// to read (stop, warning, swapped, skip): what is left is what the work it
// ran printed, shown under a failed step.
func unmarked(output string) string {
	var keep []string
	for _, l := range strings.SplitAfter(output, "\n") {
		t := strings.TrimSuffix(l, "\n")
		if t == "swapped" || strings.HasPrefix(t, "stop: ") || strings.HasPrefix(t, "warning: ") || strings.HasPrefix(t, "skip: ") {
			continue
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "")
}

// tarball packs the artifacts, from the checkout's top, into a release
// archive in a private directory of the run, and reads it back.
func tarball(ctx context.Context, top string, artifacts []string) ([]byte, error) {
	if err := artifactsInside(top, artifacts); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "zap-deploy-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	name := filepath.Join(dir, "release.tar.gz")
	cmd := exec.CommandContext(ctx, "tar", append([]string{"-czf", name, "--"}, artifacts...)...)
	cmd.Dir = top
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("tar: %s", strings.TrimSpace(lastLines(errb.String(), 3)))
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxArchive+1))
	if err == nil && len(b) > MaxArchive {
		return nil, fmt.Errorf("the release archive is larger than %d MiB, the most a deploy uploads", MaxArchive>>20)
	}
	return b, err
}

// release runs the release script on the target, and says whether it
// swapped.
func (r *Runner) release(ctx context.Context, digest string) (bool, error) {
	out, err := op(ctx, r.Target, opRelease, r.Plan.Steps.Script, scriptLimit, digest)
	swapped := false
	for _, l := range strings.Split(out, "\n") {
		switch {
		case l == "swapped":
			swapped = true
		case strings.HasPrefix(l, "warning: "):
			r.Warn(strings.TrimPrefix(l, "warning: "))
		}
	}
	if err == nil {
		return swapped, nil
	}
	if swapped {
		// Taken as swapped only when current, read again, names it.
		_, live, rerr := readTarget(ctx, r.Target, r.Plan.Path)
		swapped = rerr == nil && live.Release == r.Plan.Source.Version
		if swapped {
			why := err.Error()
			var ee *execute.ExitError
			if _, ok := err.(*stopped); !ok && errors.As(err, &ee) {
				why = firstNonEmpty(lastLines(unmarked(ee.Output), 1), why)
			}
			r.Warn("the release script failed after the swap: " + why)
		}
	}
	var st *stopped
	if errors.As(err, &st) && strings.HasPrefix(st.reason, "a prepare command failed") {
		if tail := lastLines(unmarked(st.exit.Output), 3); tail != "" {
			st.reason += ": " + tail
		}
	}
	return swapped, err
}

func (r *Runner) poll(ctx context.Context, url string, c *deployplan.Check, ready bool) Outcome {
	if r.Health != nil {
		return r.Health(ctx, url, c, ready)
	}
	return Poll(ctx, url, c)
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// lastLines is the last n non-empty lines of s.
func lastLines(s string, n int) string {
	var keep []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if strings.TrimSpace(l) != "" {
			keep = append(keep, l)
		}
	}
	if len(keep) > n {
		keep = keep[len(keep)-n:]
	}
	return strings.Join(keep, "\n")
}
