// Package zapcli is zap, the front end: it parses the command line (one
// file and one flag set per command: init.go, lock.go, validate.go,
// plan.go, apply.go, detect.go, status.go, graph.go, types.go,
// completion.go, version.go), runs the pass through
// internal/pass, and prints what it found through internal/render. What
// the commands do, their exit codes and the state they keep are in
// docs/architecture.md (The front end and its state); the --json stream, the
// lock and the pin in docs/protocol.md.
//
// Usage:
//
//	zap                                   prints the loop and the commands
//	zap version                           prints zap <version> (so does zap --version)
//	zap help [COMMAND]                    is zap [COMMAND] --help
//	zap help environment                  the variables zap reads
//	zap init [DIR]                        starts a project and locks it
//	zap types [DIR]                       writes @zap-go/zap into DIR/.zap/types
//	zap doc [--json] [NAME]               the reference: the kinds, or one's page (doc.go)
//	zap graph [--svg] [CONFIG]            the resources and their edges as DOT
//	zap completion bash|zsh|fish          a shell completion script
//	zap lock [CONFIG]                     pins the zap-eval the config is evaluated with
//	zap config validate [CONFIG]          evaluates the config only
//	zap plan [--diff] [--json] [-j N] [CONFIG...]  detects and prints the plan
//	zap apply [--wetrun] [--expect-plan HASH] [--diff] [--json] [-j N] [CONFIG...]
//	zap detect [--json] [CONFIG]          detection alone, one line per resource
//	zap status [--json] [-j N] [CONFIG...]  the last run, offline
//
// CONFIG defaults to ./zap.ts, and a directory stands for the zap.ts in it;
// plan, apply and status take several, one per host (hosts.go).
// --help on any command prints its flags and examples, in 80 columns, and
// points to zap help environment for the variables zap reads (help.go,
// docs/cli.md). An unknown command or flag is named with the one it is
// likely a typo of (usage.go).
package zapcli

import (
	"context"
	"io"
	"os"
	"sync"
	"time"

	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/mask"
	"github.com/zap-go/zap/internal/pass"
	"github.com/zap-go/zap/internal/render"
	"github.com/zap-go/zap/internal/stages"
	"github.com/zap-go/zap/internal/state"
)

// Main runs zap with args and returns its exit code.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{
		stdin:     stdin,
		stdout:    stdout,
		stderr:    stderr,
		getenv:    os.Getenv,
		lookupEnv: os.LookupEnv,
		environ:   os.Environ(),
		now:       time.Now,
	}
	return a.main(ctx, args)
}

// main runs the command and prints its error, once.
func (a *app) main(ctx context.Context, args []string) int {
	if a.getenv("GOGC") == "" {
		stages.TuneGC()
	}
	a.wrapOutputs()
	defer a.flushOutputs()
	defer func() {
		if a.bigEnv != nil {
			a.bigEnv.Close()
		}
	}()
	err := a.run(ctx, args)
	a.finishJSON(err)
	if err == nil {
		return 0
	}
	code, msg, hints := errorOf(err)
	if !exit.IsReported(err) {
		render.Error(a.stderr, msg, hints...)
	}
	return code
}

// app is one run of zap: its I/O and the operator environment.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	lookupEnv      func(string) (string, bool)
	environ        []string
	now            func() time.Time
	// stageDir overrides where the stages are found (tests); "" is
	// beside zap's own executable.
	stageDir string
	// evaluator is --evaluator: the zap-eval to run, by absolute path.
	evaluator string
	// envFile is --env-file: a file of NAME=VALUE lines loaded into the
	// operator environment before anything resolves.
	envFile string
	// bootstrap is --bootstrap: zap-detect and zap-exec connect as the
	// target's bootstrap_user.
	bootstrap bool
	// noLock is --no-lock: no tracked pin is read from zap.lock, none is
	// fetched, nothing is written to it. mintPins is apply's: a missing
	// tracked pin is minted, a stale one refused.
	noLock, mintPins bool
	// diff is --diff (plan, apply): the pass reads the text of each file
	// whose content would change, and the plan shows its diff.
	diff bool
	// bigEnv holds the env file's variables too long for a child's
	// environment (internal/envpass), for the stages that resolve
	// references; nil when there are none.
	bigEnv *os.File

	// rawStdout and rawStderr are stdout and stderr as given (the
	// terminal checks need the files); stdout and stderr are masked
	// writers over colouring ones (render.Colour, on only for a terminal)
	// over the given ones.
	rawStdout, rawStderr io.Writer
	outMask, errMask     *maskedWriter
	outColour, errColour *render.Colour
	// noColor is --no-color.
	noColor bool
	// masker masks every secret the config references, once it is
	// evaluated; nil before.
	masker *mask.Masker
	// json is --json, nil without it (jsonout.go).
	json *jsonMode
	// jobs is -j: how many hosts a command over several runs at once;
	// host is the host this run is one of (hosts.go), nil for a run of
	// one.
	jobs int
	host *hostRun
	// hostSlots holds a token for each host running now, at most jobs;
	// liveLine is their live block on a terminal (nil: none); hostOut
	// keeps the --json stream's lines, written by each host's run, whole.
	hostSlots chan struct{}
	liveLine  *liveHosts
	hostOut   sync.Mutex
	// failFast is --fail-fast; onSkip is told of each host it kept from
	// starting (a wetrun's meeting counts it out).
	failFast bool
	onSkip   func(*hostRun)
}

// session is a pass on a config (pass.Session) in this run of zap.
type session struct {
	*pass.Session
	a *app
}

// open prepares a command on config (pass.Open; a directory is the zap.ts
// in it, configFile), once the env file is in the operator environment.
// withState opens the state directory too.
func (a *app) open(config string, withState bool) (*session, error) {
	if err := a.loadEnvFile(); err != nil {
		return nil, err
	}
	config, err := configFile(config)
	if err != nil {
		return nil, err
	}
	s := &session{a: a}
	env := pass.Env{
		Getenv:       a.getenv,
		LookupEnv:    a.lookupEnv,
		Environ:      a.environ,
		BigEnv:       a.bigEnv,
		Stderr:       a.stderr,
		Now:          a.now,
		StageDir:     a.stageDir,
		Evaluator:    a.evaluator,
		Bootstrap:    a.bootstrap,
		NoLock:       a.noLock,
		MintPins:     a.mintPins,
		Diff:         a.diff,
		Resolved:     a.useSecrets,
		BeforeDetect: s.warmSudo,
	}
	p, err := pass.Open(env, config, withState)
	if err != nil {
		return nil, err
	}
	s.Session = p
	a.warnShared(config, p.Lock)
	return s, nil
}

// load opens a command on config, with no state directory, and evaluates
// it (pass.Session.Load).
func (a *app) load(ctx context.Context, config string) (*session, *pass.Evaluation, error) {
	s, err := a.open(config, false)
	if err != nil {
		return nil, nil, err
	}
	ev, err := s.Load(ctx)
	return s, ev, err
}

// start opens a command on config, with the state directory, and starts
// its pass (pass.Session.Start): the config evaluated, its connection
// context held to check, and the target's last run read.
func (a *app) start(ctx context.Context, config string, check func(*pass.Session) error) (*session, *pass.Evaluation, *state.Loaded, error) {
	s, err := a.open(config, true)
	if err != nil {
		return nil, nil, nil, err
	}
	ev, last, err := s.Start(ctx, check)
	if err != nil {
		return nil, nil, nil, err
	}
	return s, ev, last, nil
}
