// Package zapdeploy is zap-deploy, the stage that ships an app as a
// versioned release: it plans a deploy (read-only) and runs a plan.
//
// Usage:
//
//	zap-deploy plan [flags] [DECLARATION]
//	zap-deploy show [--scripts] [PLAN]
//	zap-deploy run [--dir DIR] [--progress] [PLAN]
//
// See the usage text below, docs/deploy.md (using it) and
// docs/deploy-design.md (how it is built).
package zapdeploy

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/user"

	"github.com/zap-go/zap/internal/deploy"
	"github.com/zap-go/zap/internal/escape"
	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/localops"
	"github.com/zap-go/zap/internal/mask"
	"github.com/zap-go/zap/internal/sshhost"
	"github.com/zap-go/zap/internal/stage"
	"github.com/zap-go/zap/internal/suggest"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/deployplan"
)

const usage = `usage: zap-deploy plan [flags] [DECLARATION]
       zap-deploy show [--scripts] [PLAN]
       zap-deploy run [--dir DIR] [--progress] [PLAN]
       zap-deploy --version

plan reads a declaration (zap-eval's output) from the file DECLARATION or
stdin, the app's git checkout (--dir, default the working directory) and,
over SSH, the target's current release, and writes the deploy plan
(zap.deploy-plan/2) to stdout. It changes nothing anywhere. The health
domain's references stay references in the plan, beside the values they
resolved to (a secret's value is never written).

  zap-eval zap.ts | zap-deploy plan | zap-deploy run

  --dir DIR          the app's git checkout (default: the working directory)
  --force            ship a dirty tree, or the version already live
  --skip-build       leave out the build step
  --skip-preflight   record that the drift preflight is skipped
  --lock PATH        fold the pins the zap.lock at PATH holds for the
                     declared resources into the preflight's digest
  --bootstrap        connect as the target's bootstrap_user
  --text             write the plan as text (what a dry run shows) instead
  --scripts          with --text, print Zap's own scripts whole where the
                     text names them by digest

show writes a deploy plan document as text (--scripts as for plan).

run executes a deploy plan: build, tarball, upload, the release script,
restart, health, readiness, and a rollback when a step after the swap fails.
It writes event lines (zap.events/1) to stdout and warnings to stderr; with
--progress, step_output events too, a running step's last output line (as
zap-exec --progress writes them). Every step runs through the engine zap-exec
runs apply's steps through: the build on this machine, the rest on the
target over one SSH connection. A plan
with no plan_hash (a dirty tree without --force, the live version without
--force, a masked host) is refused; a plan whose live release is already its
version says so and exits 0. The health URL's references resolve from run's
own environment, each to the value the plan recorded, or run refuses before
the first step.

Environment:
  HOME           what ~ means in your ssh config
  SSH_AUTH_SOCK  the ssh agent whose keys a remote target is offered (with
                 the IdentityFile keys of your ssh config)
  PATH           where ssh (ssh -G reads your ssh config), git and the build's
                 commands are found
  USER           the deployer a release records, when the system has no
                 name for the account
  ZAP_ENV_FD     set by zap, not by you: the descriptor holding --env-file
                 values too long for an environment
  and every variable the declaration references (plan; run reads only the
                 secrets the plan names, to mask them out of what a step
                 prints)

Examples:
  zap-eval | zap-deploy plan --text           # what a dry run shows
  zap-eval | zap-deploy plan > deploy.json    # the plan, to review
  zap-deploy run --dir ~/src/app deploy.json  # ship it

Exit status: plan and show: 0 written, 2 bad input, 1 a problem in the world
(git, the connection, the target). run: 0 the release is live and healthy
(or was already), 1 a step failed (after any rollback), 2 refused before
anything ran.
`

// Main runs zap-deploy with args and returns its exit code.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return stage.Finish("zap-deploy", usage, exit.BadInput(errors.New("name a verb: plan, show or run"), "run zap-deploy --help for its usage"), stdout, stderr)
	}
	var err error
	switch args[0] {
	case "plan":
		err = planVerb(ctx, args[1:], stdin, stdout, stderr)
	case "show":
		err = showVerb(args[1:], stdin, stdout)
	case "run":
		err = runVerb(ctx, args[1:], stdin, stdout, stderr)
	case "-h", "-help", "--help", "help":
		err = flagHelp
	case "-version", "--version":
		err = stage.ErrVersion
	default:
		err = unknownVerb(args[0])
	}
	return stage.Finish("zap-deploy", usage, err, stdout, stderr)
}

func planVerb(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := stage.NewFlagSet("zap-deploy plan")
	var o deploy.Options
	fs.StringVar(&o.Dir, "dir", ".", "the app's git checkout")
	fs.StringVar(&o.Lock, "lock", "", "take the preflight's pins from the zap.lock at `PATH`")
	fs.BoolVar(&o.Flags.Force, "force", false, "")
	fs.BoolVar(&o.Flags.SkipBuild, "skip-build", false, "")
	fs.BoolVar(&o.Flags.SkipPreflight, "skip-preflight", false, "")
	fs.BoolVar(&o.Flags.Bootstrap, "bootstrap", false, "")
	text := fs.Bool("text", false, "")
	scripts := fs.Bool("scripts", false, "")
	passed, data, err := stage.InputEnv(fs, args, stdin, "declaration")
	if err != nil {
		return err
	}
	d, err := declaration.Read(data)
	if err == nil {
		err = d.Validate()
	}
	if err != nil {
		return stage.Unreadable(err, "declaration", "zap-eval")
	}
	switch {
	case d.Deploy == nil:
		return exit.BadInput(errors.New("declaration: the config declares no deploy block (zap.deploy)"))
	case d.Target.Local:
		return exit.BadInput(errors.New("declaration: target: zap deploy ships to a remote host; the config's target is the local machine"))
	}
	m, err := deploy.Make(ctx, d, passed.Lookup, o, connect)
	if err != nil {
		return masked(classify(err), deploy.Masker(d, passed.Lookup))
	}
	if *text {
		m.Scripts = *scripts
		_, err = io.WriteString(stdout, deploy.Text(m))
		return err
	}
	// The plan's warnings (a health domain this machine can't reach) go
	// to stderr, which zap passes on beside the plan it shows.
	for _, w := range m.Warnings {
		fmt.Fprintf(stderr, "warning: %s\n", escape.Line(deploy.Masker(d, passed.Lookup).String(w)))
	}
	return writePlan(stdout, m.Plan)
}

func writePlan(stdout io.Writer, p *deployplan.Plan) error {
	out, err := p.Encode()
	if err != nil {
		return fmt.Errorf("encode the deploy plan: %w", err)
	}
	if _, err := stdout.Write(append(out, '\n')); err != nil {
		return exit.InWorld(fmt.Errorf("write the deploy plan: %w", err))
	}
	return nil
}

func readPlan(fs interface {
	NArg() int
	Arg(int) string
}, stdin io.Reader) (*deployplan.Plan, error) {
	if fs.NArg() > 1 {
		return nil, exit.BadInput(fmt.Errorf("want at most one plan file, not %d arguments", fs.NArg()))
	}
	data, err := stage.Read(fs.Arg(0), stdin)
	if err != nil {
		return nil, exit.BadInput(fmt.Errorf("read the deploy plan: %w", err))
	}
	p, err := deployplan.Read(data)
	if err != nil {
		return nil, stage.Unreadable(err, "deploy plan", "zap-deploy plan")
	}
	return p, nil
}

func showVerb(args []string, stdin io.Reader, stdout io.Writer) error {
	fs := stage.NewFlagSet("zap-deploy show")
	scripts := fs.Bool("scripts", false, "")
	if err := stage.Parse(fs, args); err != nil {
		return err
	}
	p, err := readPlan(fs, stdin)
	if err != nil {
		return err
	}
	_, err = io.WriteString(stdout, deploy.Text(&deploy.Made{Plan: p, Scripts: *scripts}))
	return err
}

func runVerb(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := stage.NewFlagSet("zap-deploy run")
	dir := fs.String("dir", ".", "the app's git checkout")
	progress := fs.Bool("progress", false, "")
	// run resolves the check URLs' references (the health domain) from
	// its environment and the descriptor; reading the descriptor closes
	// it and takes its variable out, so no process run starts gets either.
	passed, err := stage.ParseEnv(fs, args)
	if err != nil {
		return err
	}
	p, err := readPlan(fs, stdin)
	if err != nil {
		return err
	}
	if deploy.AlreadyLive(p) {
		fmt.Fprintf(stderr, "server already at this version: %s is live on %s\n", escape.Line(p.Source.Version), escape.Line(p.Target.Host))
		return nil
	}
	if p.Hash == "" {
		return exit.BadInput(errors.New("the deploy plan has no plan_hash: a dirty tree without --force, or a host, user or health domain behind a masked reference, can't be deployed"))
	}
	if err := deployplan.Verify(p, deploy.Hashed()...); err != nil {
		return exit.BadInput(err)
	}
	urls, err := deploy.ResolveChecks(p, passed.Lookup)
	if err != nil {
		return exit.BadInput(err)
	}
	src, err := deploy.ReadSource(ctx, *dir)
	if err != nil {
		return exit.InWorld(err)
	}
	if src != p.Source {
		return exit.BadInput(fmt.Errorf("the checkout is at %s now, not the plan's %s: make a new plan", src.Version, p.Source.Version))
	}
	if err := deploy.ArtifactsInside(ctx, *dir, p.Steps.Artifacts); err != nil {
		return classify(err)
	}
	c, err := dial(ctx, sshhost.Target{Host: p.Target.Host, User: p.Target.User, Port: p.Target.Port, Identity: p.Target.Identity, Notice: sshhost.Warn(stderr)})
	if err != nil {
		return classify(err)
	}
	defer c.Close()
	// A step's output is masked as it is kept, before its tail is cut:
	// the front end masks it again, but can't know a secret cut in two.
	m := deploy.RunMasker(p, passed.Lookup)
	r := &deploy.Runner{Plan: p, Dir: *dir, Target: c.Exec(), Local: localops.New(os.Environ()), Events: stdout, URLs: urls,
		Mask: m, Live: *progress,
		Warn: func(s string) { fmt.Fprintf(stderr, "warning: %s\n", escape.Line(m.String(s))) }}
	if err := r.Run(ctx); err != nil {
		return exit.InWorld(err)
	}
	return nil
}

// unknownVerb is the usage error for a verb zap-deploy hasn't, with the
// one it is likely a typo of.
func unknownVerb(verb string) error {
	hints := []string{"run zap-deploy --help for its usage"}
	if near, ok := suggest.Closest(verb, []string{"plan", "show", "run"}); ok {
		hints = append([]string{"did you mean zap-deploy " + near + "?"}, hints...)
	}
	return exit.BadInput(fmt.Errorf("unknown verb %q", verb), hints...)
}

// flagHelp is --help as a verb.
var flagHelp = flag.ErrHelp

// connect resolves the declared target and connects to it as the
// operator's ssh would: the target a plan reads through the engine's host
// (sshhost's Exec).
func connect(ctx context.Context, t *declaration.Target, text func(declaration.Text) string, bootstrap bool) (*deploy.Connection, error) {
	to, err := sshhost.ResolveTarget(t, text, bootstrap)
	if err != nil {
		return nil, err
	}
	c, err := dial(ctx, to)
	if err != nil {
		return nil, err
	}
	return &deploy.Connection{Host: to.Host, Port: to.Port, Identity: to.Identity, Exec: c.Exec(), Close: c.Close}, nil
}

// dial connects to the target as the operator's ssh would.
func dial(ctx context.Context, t sshhost.Target) (*sshhost.Client, error) {
	c, err := sshhost.Dial(ctx, t, operatorHome())
	if err != nil {
		var ce *sshhost.ConnectError
		switch {
		case errors.As(err, &ce) && errors.Is(ce, sshhost.ErrConfig):
			return nil, exit.BadInput(fmt.Errorf("cannot connect to %s: %s", t.Host, ce.Reason), ce.Hints...)
		case errors.As(err, &ce):
			return nil, exit.InWorld(fmt.Errorf("cannot connect to %s: %s", t.Host, ce.Reason), ce.Hints...)
		}
		return nil, exit.InWorld(fmt.Errorf("cannot connect to %s: %w", t.Host, err))
	}
	return c, nil
}

// classify gives an error of the plan's making its exit code: a target
// that resolves to nothing, or a deploy block its values don't fit, is bad
// input, the rest the world's.
func classify(err error) error {
	var te *sshhost.TargetError
	var se *exit.Error
	var ie *deploy.InputError
	switch {
	case errors.As(err, &se):
		return err
	case errors.As(err, &ie):
		return exit.BadInput(err)
	case errors.As(err, &te):
		if te.Hint != "" {
			return exit.BadInput(err, te.Hint)
		}
		return exit.BadInput(err)
	}
	return exit.InWorld(err)
}

// masked is err as Finish prints it, with every secret m knows masked out
// of its message and hints (a host behind a secret, named by a
// connection's error), its exit code kept. It wraps nothing: what err
// wraps may hold the secret.
func masked(err error, m *mask.Masker) error {
	hints := exit.Hints(err)
	for i, h := range hints {
		hints[i] = m.String(h)
	}
	return &exit.Error{Code: exit.Code(err), Err: errors.New(m.String(err.Error())), Hints: hints}
}

// operatorHome is what ~ means in the operator's ssh config.
func operatorHome() string {
	if u, err := user.Current(); err == nil && u.HomeDir != "" {
		return u.HomeDir
	}
	return os.Getenv("HOME")
}
