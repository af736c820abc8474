// Package zapexec is zap-exec, the stage that acts: it executes a plan's
// changes on the target, in order, and streams what happens as events.
//
// Usage:
//
//	zap-exec [--wetrun] [--bootstrap] [--progress] [PLAN]
//
// zap-exec reads the plan zap-plan wrote (from the file PLAN, or stdin when
// it is absent) and, before anything on the target changes, refuses (exit 2,
// stdout empty) a plan that:
//
//   - doesn't decode or validate (the message names the field);
//   - doesn't hash to its plan_hash (plan.Verify with the operation scripts
//     of internal/ops): it was edited, or made by a zap whose scripts differ;
//   - was made for another context: on a local target the account zap-exec
//     runs as and $HOME must be the plan's user and home, since a review made
//     as one user doesn't bind a run as another; on a remote target the host
//     and connecting user (the bootstrap_user with --bootstrap), resolved
//     from the environment before connecting (one that resolves to nothing
//     is refused), and the declared home must be the plan's;
//   - puts a file with a validate check on a remote target, which the
//     operation script can't roll back yet;
//   - references a variable that is unset or empty in zap-exec's environment,
//     or a plain one whose value isn't the one the plan recorded, or was made
//     with one unresolved (the message names the variable, never a value);
//   - has a step that can't take what its references resolve to (a single
//     quote in a command, a path that resolves outside the paths Zap acts on;
//     see execute.Prepare).
//
// A build's run and env are resolved then too, refused like a command's.
//
// Without --wetrun that is all: it changes nothing, connects to nothing, and
// prints on stdout what a wetrun would do (dryRun), exit 0. Only --wetrun
// acts, so a plan handed to zap-exec by habit or by a script never runs
// unless the flag that acts was typed for it.
//
// With --wetrun it first gets each build's source archive on this machine
// (build.go: the content cache, else a fetch checked against the pin and,
// with verify, by minisign before it is cached); a source it can't have
// fails the run (exit 1; exit 2 for one the rules refuse), nothing
// changed. Then it reads every changed resource again, in one
// detection pass through the connection it acts through (checkFrom), and
// refuses (exit 2, nothing changed) a plan whose target moved since it was
// made: a create whose resource is there now, an update whose drift or
// fingerprint (a file's content, keyed with the operator's key in
// $ZAP_HOME or ~/.zap) reads otherwise, or a resource that can't be read;
// each such change is named as a conflict. So a plan saved and replayed
// after another run changed the target changes nothing. Then it runs the changes in order (internal/execute, on the local host of
// internal/localops, or over one SSH connection with sshhost.Exec: file
// operations as root under sudo -n, commands as the connecting user),
// stopping at the first failure, and writes the event
// stream of pkg/events on stdout, one JSON object per line as it happens; the
// package documentation of internal/execute lists the events and the words
// of their errors.
//
// Exit codes: 0 every change succeeded; 1 a change failed (the rest were
// skipped), the events couldn't be written, or a remote target couldn't be
// reached ("cannot connect to HOST: ssh's reason", before any event); 2 the
// plan was refused.
package zapexec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"os/user"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/stage"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/localhost"
	"github.com/zap-go/zap/internal/localops"
	"github.com/zap-go/zap/internal/mask"
	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/internal/resolve"
	"github.com/zap-go/zap/internal/sshhost"
	"github.com/zap-go/zap/pkg/canon"
	"github.com/zap-go/zap/pkg/plan"
)

const usage = `usage: zap-exec [--wetrun] [--bootstrap] [--progress] [PLAN]

Executes the plan zap-plan wrote (the file PLAN, or stdin when it is absent)
on its target, in order, stopping at the first failure, and streams JSON
events to stdout, one per line. Without --wetrun it changes nothing and
prints what it would do.

  zap-eval zap.ts | zap-detect | zap-plan | zap-exec

The plan must hash to its plan_hash, be for the user and HOME zap-exec runs
with (remotely: the host and user it connects as), and every variable it
references must be set as the plan recorded it. With --wetrun, every
resource it changes must still read as the plan saw it (a conflict
refuses the run, nothing changed).

  --wetrun     act on the target; without it nothing changes
  --bootstrap  connect to a remote target as its bootstrap_user; the plan
               must have been made with --bootstrap too
  --progress   with --wetrun, also write step_output events while a step
               runs: its last output line, masked, at most every 250 ms
               (zap passes it only when it draws progress on a terminal)
  --version    print the version and exit

Environment:
  HOME           a local plan's HOME, which must be the one it was made with
  ZAP_HOME       the state directory (default $HOME/.zap): its content cache
  SSH_AUTH_SOCK  the ssh agent whose keys a remote target is offered (with
                 the IdentityFile keys of your ssh config)
  PATH           where ssh is found: ssh -G reads your ssh config for the host
  ZAP_MINISIGN   the minisign that verifies a signed build source (an
                 absolute path; default: minisign on PATH)
  SSL_CERT_FILE, SSL_CERT_DIR
                 the CA roots remote content is fetched with
  ZAP_ENV_FD     set by zap, not by you: the descriptor holding --env-file
                 values too long for an environment
  and every variable the plan references, each as the plan recorded it

Examples:
  zap-eval | zap-detect | zap-plan > plan.json
  zap-exec plan.json            # what it would do
  zap-exec --wetrun plan.json   # do it

Exit status: 0 every change succeeded (without --wetrun: the plan would
run), 1 a change failed, 2 the plan was refused before anything ran.
`

// refuse marks a plan this run won't act on: exit 2, nothing changed.
func refuse(err error, hints ...string) error { return exit.BadInput(err, hints...) }

// errChangeFailed ends a run in which a change failed; the events said why,
// so nothing more is printed.
var errChangeFailed = &exit.Error{Code: 1, Err: errors.New("a change failed"), Reported: true}

// Main runs zap-exec with args and returns its exit code.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	return stage.Finish("zap-exec", usage, run(ctx, args, stdin, stdout, stderr), stdout, stderr)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := stage.NewFlagSet("zap-exec")
	bootstrap := fs.Bool("bootstrap", false, "connect as the target's bootstrap_user")
	wetrun := fs.Bool("wetrun", false, "act on the target")
	progress := fs.Bool("progress", false, "write step_output events: a running step's last output line")
	env, err := stage.ParseEnv(fs, args)
	if err != nil {
		return err
	}
	p, err := readPlan(fs.Args(), stdin)
	if err != nil {
		return err
	}
	res, err := checkReferences(p, env.Lookup)
	if err != nil {
		return err
	}
	var c execute.Context
	secrets := map[string]string{}
	for _, ref := range res.References {
		if ref.Secret {
			secrets[ref.Name], _ = res.Lookup(ref.Name)
		}
	}
	masker := mask.New(secrets)
	var target sshhost.Target
	if p.Target.Local {
		c, err = checkContext(p)
	} else {
		target, c, err = checkRemote(p, res, *bootstrap, masker)
	}
	if err != nil {
		return err
	}
	c.Scripts = ops.Script
	prepared, err := execute.Prepare(p, res.Lookup, c)
	if err != nil {
		// A path that resolves wrong is named as it resolved, which may
		// hold a secret.
		return refuse(errors.New(masker.String(err.Error())))
	}
	builds, err := buildSteps(prepared, res.Lookup)
	if err != nil {
		return refuse(errors.New(masker.String(err.Error())))
	}
	if !*wetrun {
		return dryRun(stdout, prepared)
	}
	// A build's source is on this machine, checked, before the target is
	// reached.
	release, err := attachSources(ctx, builds, res, masker)
	defer release()
	if err != nil {
		return err
	}

	local := localops.New(os.Environ())
	// What the system refuses natively is done again, whole, under sudo.
	local.Elevated = localops.NewSudo(local)
	var host execute.Host = local
	var reads detect.Host = &localhost.Host{Env: os.Environ()}
	if c.Remote {
		target.Notice = sshhost.Warn(stderr)
		client, err := dial(ctx, target, masker)
		if err != nil {
			return err
		}
		defer client.Close()
		host, reads = client.Exec(), client
	}
	// The target must still read as the plan was made from, change for
	// change, before the first of them runs.
	cache := contentCache()
	denv := detectEnv(p, c.Home, res)
	pinEnv(&denv, planPins(p), cache)
	if err := checkFrom(ctx, reads, p, denv, masker); err != nil {
		return err
	}
	runner := &execute.Runner{
		Host:   host,
		Events: stdout,
		Mask:   masker,
		Fetch:  fetcher(cache),
		Live:   *progress,
	}
	result, err := runner.Run(ctx, prepared)
	if err != nil {
		return exit.InWorld(err)
	}
	if result.Failed > 0 {
		return errChangeFailed
	}
	return nil
}

// readPlan reads the plan from the file args names, or stdin when there is
// no argument (or it is -), and refuses one that doesn't decode or doesn't
// hash to its plan_hash with this zap's scripts.
func readPlan(args []string, stdin io.Reader) (*plan.Plan, error) {
	if len(args) > 1 {
		return nil, refuse(fmt.Errorf("want at most one plan file, not %d arguments", len(args)), "run zap-exec --help for its usage")
	}
	name := ""
	if len(args) == 1 && args[0] != "-" {
		name = args[0]
	}
	data, err := stage.Read(name, stdin)
	var limit *canon.LimitError
	if errors.As(err, &limit) {
		return nil, refuse(fmt.Errorf("plan: %w", err))
	}
	if err != nil {
		return nil, exit.InWorld(fmt.Errorf("read the plan: %w", err))
	}

	p, err := plan.Read(data)
	if err != nil {
		return nil, stage.Unreadable(err, "plan", "zap-plan")
	}
	if err := plan.Verify(p, ops.Script); err != nil {
		return nil, refuse(err, "make the plan again with this zap (zap-eval | zap-detect | zap-plan), review it, and run that")
	}
	return p, nil
}

// checkContext refuses a plan for another account or HOME than this local
// run's, and returns the context its steps resolve against.
// dial connects to the remote target: a config naming a file Zap doesn't
// read is bad input, a connection that can't be made the world's.
func dial(ctx context.Context, target sshhost.Target, masker *mask.Masker) (*sshhost.Client, error) {
	client, err := sshhost.Dial(ctx, target, operatorHome())
	if err != nil {
		var ce *sshhost.ConnectError
		switch {
		case errors.As(err, &ce) && errors.Is(ce, sshhost.ErrConfig):
			return nil, exit.BadInput(fmt.Errorf("cannot connect to %s: %s", target.Host, masker.String(ce.Reason)), ce.Hints...)
		case errors.As(err, &ce):
			return nil, exit.InWorld(fmt.Errorf("cannot connect to %s: %s", target.Host, masker.String(ce.Reason)), ce.Hints...)
		}
		return nil, exit.InWorld(fmt.Errorf("cannot connect to %s: %s", target.Host, masker.String(err.Error())))
	}
	return client, nil
}

func checkContext(p *plan.Plan) (execute.Context, error) {
	if p.Context.Target != "local" {
		return execute.Context{}, refuse(fmt.Errorf("plan: context.target: %q, but the plan's target is local", p.Context.Target))
	}
	home := os.Getenv("HOME")
	switch {
	case home == "":
		return execute.Context{}, refuse(errors.New("HOME is unset or empty"), "set HOME to your home directory")
	case !filepath.IsAbs(home):
		return execute.Context{}, refuse(fmt.Errorf("HOME is %q, not an absolute path", home), "set HOME to your home directory")
	}
	u, err := user.Current()
	if err != nil {
		return execute.Context{}, exit.InWorld(fmt.Errorf("the account zap-exec runs as: %w", err))
	}
	if u.Username != p.Context.User {
		return execute.Context{}, refuse(
			fmt.Errorf("the plan is for user %s, and zap-exec runs as %s: a review made as one user doesn't bind a run as another", p.Context.User, u.Username),
			"make and review the plan as the user that runs it")
	}
	if home != p.Context.Home {
		return execute.Context{}, refuse(
			fmt.Errorf("the plan is for HOME %s, and HOME is %s here: ~ would name another place than the one reviewed", p.Context.Home, home),
			"make and review the plan with the HOME that runs it")
	}
	return execute.Context{Home: home, User: u.Username, Root: os.Geteuid() == 0}, nil
}

// checkReferences resolves the plan's references from the environment and
// refuses one that is unset or empty, a plain one whose value moved since
// the plan was made, and a plan made with a reference unresolved.
func checkReferences(p *plan.Plan, lookup resolve.Env) (*resolve.Resolution, error) {
	hint := "set it in the environment (zap: --env-file) as it was when the plan was made"
	if len(p.Unresolved) > 0 {
		return nil, refuse(
			fmt.Errorf("the plan was made with %s unset or empty, so it can't be trusted", strings.Join(p.Unresolved, ", ")),
			"set every referenced variable, then plan and review again")
	}
	res := resolve.Recorded(p.References, lookup)
	if len(res.Unresolved) > 0 {
		return nil, refuse(fmt.Errorf("referenced variable(s) unset or empty: %s", strings.Join(res.Unresolved, ", ")), hint)
	}
	for i, ref := range p.References {
		if ref.Secret {
			continue
		}
		if got := res.References[i].Value; got != ref.Value {
			return nil, refuse(fmt.Errorf("%s isn't the value the plan recorded for it: it moved since the plan was made", ref.Name), hint+", or plan and review again")
		}
	}
	return res, nil
}

// checkRemote resolves a remote plan's host and connecting user (the
// bootstrap_user with --bootstrap) and refuses a plan made for another host,
// user or home than the one this run would connect to, since a review made
// for one doesn't bind a run on another.
func checkRemote(p *plan.Plan, res *resolve.Resolution, bootstrap bool, masker *mask.Masker) (sshhost.Target, execute.Context, error) {
	target, err := sshhost.ResolveTarget(&p.Target, res.Text, bootstrap)
	if err != nil {
		var te *sshhost.TargetError
		if errors.As(err, &te) && te.Hint != "" {
			return target, execute.Context{}, refuse(errors.New(masker.String(err.Error())), te.Hint)
		}
		return target, execute.Context{}, refuse(errors.New(masker.String(err.Error())))
	}
	if masker.String(target.Host) != target.Host || masker.String(target.User) != target.User {
		// zap-detect wrote such a host or user masked, so no plan names
		// the machine it would run on.
		return target, execute.Context{}, refuse(errors.New("the target's host or connecting user goes through a secret reference, so no plan of it names one machine and a wetrun can't bind to a review"),
			"reference the host and user through plain variables (zap.unmask('NAME') if the name reads as a secret's)")
	}
	c := p.Context
	hint := "make and review the plan for the host and user that run it"
	switch {
	case c.Target != target.Host:
		return target, execute.Context{}, refuse(fmt.Errorf("the plan is for host %s, and the target resolves to %s here", c.Target, target.Host), hint)
	case c.User != target.User && bootstrap:
		return target, execute.Context{}, refuse(
			fmt.Errorf("the plan is for user %s, and --bootstrap connects as %s: a plan made without --bootstrap doesn't bind a --bootstrap run", orNone(c.User), target.User),
			"make and review the plan with --bootstrap too")
	case c.User != target.User:
		return target, execute.Context{}, refuse(
			fmt.Errorf("the plan is for user %s, and this run connects as %s: a review made as one user doesn't bind a run as another", orNone(c.User), orNone(target.User)),
			hint+" (a plan made with --bootstrap runs only with --bootstrap)")
	case c.Home != p.Target.Home:
		return target, execute.Context{}, refuse(fmt.Errorf("plan: context.home: %q, but the target declares home %q", c.Home, p.Target.Home))
	case c.Bootstrap != bootstrap && bootstrap:
		return target, execute.Context{}, refuse(
			errors.New("the plan was made without --bootstrap, and this run connects as the bootstrap_user: a plan made without --bootstrap doesn't bind a --bootstrap run"),
			"make and review the plan with --bootstrap too")
	case c.Bootstrap != bootstrap:
		return target, execute.Context{}, refuse(
			errors.New("the plan was made with --bootstrap, and this run connects as the target's user: a plan made with --bootstrap runs only with --bootstrap"),
			hint)
	}
	user := target.User
	if user == "" {
		user = "the connecting user"
	}
	return target, execute.Context{Home: p.Target.Home, User: user, Remote: true}, nil
}

func orNone(user string) string {
	if user == "" {
		return "(none: ssh chooses)"
	}
	return user
}

// operatorHome is what ~ means in the operator's ssh config: the account's
// home, as ssh takes it, else $HOME.
func operatorHome() string {
	if u, err := user.Current(); err == nil && u.HomeDir != "" {
		return u.HomeDir
	}
	return os.Getenv("HOME")
}
