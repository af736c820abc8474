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
	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/internal/sshhost"
	"github.com/zap-go/zap/pkg/deployplan"
	"github.com/zap-go/zap/pkg/events"
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

// Runner runs one deploy plan.
type Runner struct {
	Plan *deployplan.Plan
	// Dir is the checkout (its top level is where build and tarball run).
	Dir string
	// Client is the connection to the plan's target.
	Client *sshhost.Client
	// Events receives the event lines; Warn the warnings of the text
	// report (repairs, a failed prune) that no event holds.
	Events io.Writer
	Warn   func(string)
	// URLs are the plan's check URLs, resolved (ResolveChecks).
	URLs URLs
	// Health polls a check at its resolved URL (nil: HTTPS from this
	// machine, Poll).
	Health func(ctx context.Context, url string, c *deployplan.Check, ready bool) Outcome

	step int
}

// Failure is a step that failed: the error its event carries.
type Failure struct {
	Step string
	Err  error
}

func (f *Failure) Error() string { return f.Step + ": " + f.Err.Error() }
func (f *Failure) Unwrap() error { return f.Err }

// Run runs the plan's steps and returns nil when the release went live and
// is healthy, or the first failure (after the rollback it caused).
func (r *Runner) Run(ctx context.Context) error {
	p := r.Plan
	r.emit(events.Event{Event: events.RunStarted, Format: events.Format, PlanHash: p.Hash})
	err := r.steps(ctx)
	if err != nil {
		r.emit(events.Event{Event: events.RunFailed, Failed: 1})
		return err
	}
	r.emit(events.Event{Event: events.RunOK, OK: 1})
	return nil
}

func (r *Runner) steps(ctx context.Context) error {
	p := r.Plan
	top, err := git(ctx, r.Dir, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return err
	}
	top = strings.TrimSpace(top)
	if p.Steps.Build != "" {
		if err := r.do("build", "build: "+p.Steps.Build, func() error { return build(ctx, top, p.Steps.Build) }); err != nil {
			return err
		}
	}
	var archive []byte
	if err := r.do("tarball", "tarball: "+strings.Join(p.Steps.Artifacts, " "), func() error {
		archive, err = tarball(ctx, top, p.Steps.Artifacts)
		return err
	}); err != nil {
		return err
	}
	sum := sha512.Sum512(archive)
	digest := hex.EncodeToString(sum[:])
	if err := r.do("upload", "upload: "+p.Path+"/"+p.Steps.Upload.Name, func() error { return r.upload(ctx, archive, digest) }); err != nil {
		return err
	}
	archive = nil
	swapped := false
	if err := r.do("release", "release script on "+p.Target.Host, func() error {
		var err error
		swapped, err = r.release(ctx, digest)
		return err
	}); err != nil && !swapped {
		return err
	}
	return r.afterSwap(ctx)
}

// afterSwap restarts and checks the live release, rolling back on a
// failure.
func (r *Runner) afterSwap(ctx context.Context) error {
	p := r.Plan
	var failed error
	if p.Steps.Restart != "" {
		failed = r.do("restart", "restart: "+p.Steps.Restart, func() error { return r.restart(ctx) })
	}
	if failed == nil && p.Steps.Health != nil {
		failed = r.do("health", "health: "+r.URLs.Health, func() error { return r.poll(ctx, r.URLs.Health, p.Steps.Health, false).Err() })
	}
	if failed == nil && p.Steps.Ready != nil {
		r.step++
		r.emit(events.Event{Event: events.StepStarted, ID: "ready", Step: r.step, Summary: "readiness: " + r.URLs.Ready})
		o := r.poll(ctx, r.URLs.Ready, p.Steps.Ready, true)
		switch {
		case o.Status == 404:
			reason := "the app doesn't serve /ready (404): the deploy goes on on liveness alone"
			r.Warn(reason)
			r.emit(events.Event{Event: events.StepSkipped, ID: "ready", Step: r.step, Reason: reason})
		case o.Err() != nil:
			failed = &Failure{Step: "ready", Err: o.Err()}
			r.emit(failedEvent("ready", r.step, o.Err()))
		default:
			r.emit(events.Event{Event: events.StepOK, ID: "ready", Step: r.step})
		}
	}
	if failed == nil {
		r.gate(ctx, p.Source.Version, GatePassed)
		return nil
	}
	r.rollback(ctx)
	return failed
}

// gate records the verdict of a release's restart and checks in
// deploy_info.json, while current names it (gate.sh): the next deploy's
// plan reads it, so a release that never passed isn't live to it. A
// verdict that can't be recorded is a warning: the gate stays pending, and
// the next deploy ships the release again.
func (r *Runner) gate(ctx context.Context, version, verdict string) {
	res := r.Client.Shell(ctx, "sh", strings.NewReader(ops.Input(Gate, r.Plan.Path, version, verdict)), restartLimit)
	if res.Err == nil && res.Status == 3 {
		r.Warn("the gate's verdict on " + version + " (" + verdict + ") was not recorded: " + strings.TrimPrefix(lastLines(res.Stdout, 1), "skip: "))
		return
	}
	if err := shellErr(res, restartLimit); err != nil {
		r.Warn("the gate's verdict on " + version + " (" + verdict + ") was not recorded in deploy_info.json: " + err.Error())
	}
}

// do runs one step between its events.
func (r *Runner) do(id, summary string, f func() error) error {
	r.step++
	r.emit(events.Event{Event: events.StepStarted, ID: id, Step: r.step, Summary: summary})
	if err := f(); err != nil {
		r.emit(failedEvent(id, r.step, err))
		return &Failure{Step: id, Err: err}
	}
	r.emit(events.Event{Event: events.StepOK, ID: id, Step: r.step})
	return nil
}

func failedEvent(id string, step int, err error) events.Event {
	e := events.Event{Event: events.StepFailed, ID: id, Step: step, Error: err.Error(), Code: events.Permanent}
	var se *execute.CodedError
	if errors.As(err, &se) {
		e.Code = se.Code
	}
	var ee *execute.ExitError
	if errors.As(err, &ee) {
		st := ee.Status
		e.Exit, e.Code, e.Output = &st, events.ExecutionFailed, ee.Output
	}
	return e
}

func (r *Runner) emit(e events.Event) {
	line, err := e.Marshal()
	if err == nil {
		r.Events.Write(append(line, '\n'))
	}
}

// build runs the build command in the checkout, in a shell of its own. Its
// output is kept masked with the Masker ctx carries (execute.WithMask).
func build(ctx context.Context, top, command string) error {
	ctx, cancel := context.WithTimeout(ctx, buildLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-e")
	cmd.Dir = top
	cmd.Stdin = strings.NewReader(command)
	out := execute.OutputTail(ctx)
	cmd.Stdout, cmd.Stderr = out, out
	err := cmd.Run()
	var xe *exec.ExitError
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return &execute.TimeoutError{After: buildLimit, Output: out.String()}
	case errors.As(err, &xe):
		return &execute.ExitError{Status: xe.ExitCode(), Output: out.String()}
	}
	return err
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

// upload installs the archive in the app path as the connecting user.
func (r *Runner) upload(ctx context.Context, archive []byte, digest string) error {
	in := ops.PutInput(ops.Input(Install, r.Plan.Path, r.Plan.Steps.Upload.Name, digest), archive)
	res := r.Client.Shell(ctx, "sh", bytes.NewReader(in), scriptLimit)
	return shellErr(res, scriptLimit)
}

// release runs the release script, and says whether it swapped.
func (r *Runner) release(ctx context.Context, digest string) (bool, error) {
	res := r.Client.Shell(ctx, "sh", strings.NewReader(ops.Input(r.Plan.Steps.Script, digest)), scriptLimit)
	swapped, stop := false, ""
	for _, l := range strings.Split(res.Stdout, "\n") {
		switch {
		case l == "swapped":
			swapped = true
		case strings.HasPrefix(l, "warning: "):
			r.Warn(strings.TrimPrefix(l, "warning: "))
		case strings.HasPrefix(l, "stop: "):
			stop = strings.TrimPrefix(l, "stop: ")
		}
	}
	if res.Err == nil && !res.TimedOut && res.Status == 0 {
		return swapped, nil
	}
	if swapped {
		// Taken as swapped only when current, read again, names it.
		_, live, err := readTarget(ctx, r.Client, r.Plan.Path)
		swapped = err == nil && live.Release == r.Plan.Source.Version
		if swapped {
			r.Warn("the release script failed after the swap: " + firstNonEmpty(stop, lastLines(res.Stderr, 1)))
		}
	}
	if strings.HasPrefix(stop, "a prepare command failed") && strings.TrimSpace(res.Stderr) != "" {
		return swapped, fmt.Errorf("%s: %s", stop, lastLines(res.Stderr, 3))
	}
	if stop != "" {
		return swapped, errors.New(stop)
	}
	return swapped, shellErr(res, scriptLimit)
}

// restart restarts the service as root.
func (r *Runner) restart(ctx context.Context) error {
	return shellErr(r.Client.Shell(ctx, "sudo -n sh", strings.NewReader(r.Plan.Steps.Restart), restartLimit), restartLimit)
}

func shellErr(res sshhost.ShellResult, limit time.Duration) error {
	switch {
	case res.Err != nil:
		return res.Err
	case res.TimedOut:
		return &execute.TimeoutError{After: limit, Output: execute.JoinOutput(res.Stdout, res.Stderr)}
	case res.Status != 0:
		for _, l := range strings.Split(res.Stderr+"\n"+res.Stdout, "\n") {
			if s, ok := strings.CutPrefix(l, "stop: "); ok {
				return errors.New(s)
			}
		}
		return &execute.ExitError{Status: res.Status, Output: execute.JoinOutput(res.Stdout, res.Stderr)}
	}
	return nil
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
