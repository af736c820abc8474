// Package zapeval is zap-eval, the evaluation stage: it runs a zap.ts config
// in a sandbox and writes the declaration it makes.
//
// Usage:
//
//	zap-eval [--inputs FILE] [CONFIG]
//
// zap-eval finds the config's project (internal/project: the nearest
// directory at or above CONFIG, default ./zap.ts, whose package.json holds
// more than "type" and "sideEffects") and evaluates it in a process of its
// own, zap-eval started again (child.go), which it watches (watch.go). That
// process finds the project again, must find the same one, walls itself in
// with Landlock so it can read nothing but that project and the packages
// its node_modules links (internal/sandbox), bundles the config and the
// modules it imports (internal/bundle, esbuild), puts itself behind a
// seccomp filter (sandbox.Filter), runs the bundle in an interpreter with
// no clock, no randomness, no environment and no I/O but the reads of the
// project's files a config names for content (internal/evaluate, goja;
// internal/projfile, by a descriptor of the project's root that the
// filter admits openat2 under), hands the declaration it made to zap-eval
// and then checks it against the form checks and the structural gate
// (declaration.Validate), each problem placed in the config. zap-eval reads
// it again meanwhile, as the other stages will, and once that process has
// exited 0 writes it to stdout as canonical JSON and a newline. What the
// config prints with console goes to stderr as it is printed.
//
// The bounds hold in the middle of any single call the config makes
// (limits.go): the evaluating process can take on no more than MaxMemory
// (896 MiB) of address space once it starts (RLIMIT_AS, and a memory cgroup
// of its own where zap-eval can make one, cgroup.go), on top of the 512 MiB
// heap cap the interpreter checks between steps; zap-eval kills it once it
// has run 30 seconds, and it dies with zap-eval. Either refusal names the
// limit ("the config used more than 512 MiB of memory", "the config ran
// longer than 30s"), exit 2; a killed evaluation writes nothing to stdout,
// and nothing to the --inputs file.
//
// With --inputs FILE it also writes, to FILE, the evaluation's inputs
// (evalcache.Inputs, "zap.evalinputs/1"): every module and package.json the
// bundle read and every project file the config read for content
// (project_text and its kin), each with the blake3 of the bytes read, and
// every path whose absence decided a resolution, sorted by path. FILE is opened (created,
// mode 600, or truncated) before anything else, as zap-eval runs; it is
// written only when the declaration is, just before it. stdout stays the
// declaration alone. The zap eval cache (internal/evalcache) keeps the list.
//
// It never evaluates as root. Run as root, it evaluates as the user who ran
// sudo (SUDO_UID, in the group SUDO_GID) when that user owns the project,
// otherwise as the project's owner in its primary group, never in group 0
// and with no supplementary groups: the evaluating process is started with
// those credentials. A project root owns, one that is or holds the user's
// home, and one the user can't search down to are refused, exit 2.
//
// The environment never shapes the declaration: the one thing zap-eval
// reads it for is the secret gate, which only refuses. A string the config
// wrote out that holds the whole value (8 characters or more) of a secret it
// references, resolved from zap-eval's environment, fails the evaluation,
// naming the field and the variable and showing none of the text; a machine
// that lacks the secret passes.
//
// Exit codes: 0 it wrote the declaration; 2 the config's problem (no config,
// no project, an import refused, an exception, a builder call refused, a
// declaration that fails validation, a bound passed), the message naming the
// file, the field or the resource: every mistake the config made, up to 20,
// each at its file:line:col (docs/protocol.md, A config's mistakes); 1 zap-eval's own problem (the output
// can't be written, a kernel or architecture that can't hold the sandbox,
// an internal error). A crash of the evaluating process (a panic, a Go
// fatal error other than running out of memory) is passed on as the
// runtime wrote it, with its exit code.
package zapeval

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"strconv"
	"syscall"

	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/stage"
	"github.com/zap-go/zap/internal/stages"

	"github.com/zap-go/zap/internal/bundle"
	"github.com/zap-go/zap/internal/envpass"
	"github.com/zap-go/zap/internal/evaluate"
	"github.com/zap-go/zap/internal/project"
	"github.com/zap-go/zap/pkg/declaration"
)

const usage = `usage: zap-eval [--inputs FILE] [CONFIG]

Evaluates the config CONFIG (default ./zap.ts) in a sandbox and writes the
declaration it makes to stdout. What the config prints goes to stderr.

  zap-eval zap.ts | zap-detect | zap-plan

The config lives in a project: the nearest directory at or above it whose
package.json holds more than "type" and "sideEffects". It imports only from
that project and the packages its node_modules links.

  --inputs FILE   also write the evaluation's inputs (every file read, with
                  its blake3, and every path whose absence counted) to FILE
  --version       print the version and exit

Environment (never shapes the declaration):
  SUDO_UID, SUDO_GID
                 run as root through sudo, the config is evaluated as the
                 user who ran sudo when that user owns the project
  ZAP_ENV_FD     set by zap, not by you: the descriptor holding --env-file
                 values too long for an environment
  and every variable the config references: a string the config wrote
  holding a referenced secret's value fails the evaluation

Examples:
  zap-eval                       # evaluate ./zap.ts
  zap-eval web.ts > decl.json    # keep the declaration of web.ts
  zap-eval --inputs in.json      # also list every file the evaluation read

Exit status: 0 the declaration was written, 2 the config has a problem
(the message says which and where), 1 zap-eval couldn't run or write.
`

// MaxOutput is the largest declaration zap-eval writes, in bytes.
const MaxOutput = 64 << 20

func configErr(err error, hints ...string) error { return exit.BadInput(err, hints...) }
func ownErr(err error) error                     { return exit.InWorld(err) }

// Main runs zap-eval with args and returns its exit code.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if isChild(args) {
		return childMain(ctx, args, stdout)
	}
	// zap-eval's own collector is tuned as zap's is (stages.TuneGC)
	// unless the operator set GOGC: it reads and checks the whole
	// declaration its evaluating process wrote, a few collections at the
	// Go default that a short process needn't make (at 2,000 resources,
	// about a tenth of the command's CPU).
	if os.Getenv("GOGC") == "" {
		stages.TuneGC()
	}
	// A run whose evaluating process said what there was to say
	// (errDone) is Reported: Finish prints nothing more.
	return stage.Finish("zap-eval", usage, run(ctx, args, stdout, stderr), stdout, stderr)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := stage.NewFlagSet("zap-eval")
	inputsPath := fs.String("inputs", "", "write the evaluation's inputs to `FILE`")
	if err := stage.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return configErr(fmt.Errorf("want at most one config, not %d arguments", fs.NArg()), "run zap-eval --help for its usage")
	}
	// The env file's long variables, for the secret gate here and in the
	// evaluating process.
	env, err := envpass.Load()
	if err != nil {
		return configErr(err)
	}
	config := "zap.ts"
	if fs.NArg() == 1 {
		config = fs.Arg(0)
	}
	inputs, err := openInputs(*inputsPath)
	if err != nil {
		return err
	}
	if inputs != nil {
		defer inputs.Close()
	}

	owners := project.Owners()
	proj, err := project.FindWith(config, owners)
	if err != nil {
		return classify(err)
	}
	// The evaluator never runs as root: run as root, zap-eval evaluates as
	// the user the project belongs to.
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		acct, err := dropTarget(proj, os.Getenv, lookupPasswd)
		if err != nil {
			return err
		}
		cred = &syscall.Credential{Uid: acct.Uid, Gid: acct.Gid, Groups: []uint32{}}
	}
	// What the evaluating process wrote is read here as every later stage
	// reads it, so nothing it could be made to write gets further: as
	// soon as it is written, while that process checks it too, and taken
	// only if that process then exits 0.
	var checked error
	read := false
	check := func(b []byte) {
		read = true
		decl, err := declaration.Read(bytes.TrimSuffix(b, []byte("\n")))
		if err == nil {
			err = decl.Validate()
		}
		if err == nil {
			err = secretGate(decl, env.Lookup)
		}
		checked = err
	}
	res, err := evaluateIn(ctx, child{proj: proj, owners: owners, cred: cred, inputs: inputs != nil, limit: timeLimit(), env: env, written: check}, stderr)
	if err != nil {
		return err
	}
	if !read {
		check(res.decl)
	}
	if checked != nil {
		return ownErr(fmt.Errorf("the evaluating process wrote a declaration that doesn't pass: %w", checked))
	}
	if inputs != nil {
		if _, err := inputs.Write(res.inputs); err != nil {
			return ownErr(fmt.Errorf("write the inputs: %w", err))
		}
	}
	if _, err := stdout.Write(res.decl); err != nil {
		return ownErr(fmt.Errorf("write the declaration: %w", err))
	}
	return nil
}

// classify gives an error its exit code: the config's problems are 2.
func classify(err error) error {
	var pe *project.Error
	if errors.As(err, &pe) {
		return configErr(pe, hints(pe.Hint)...)
	}
	var be *bundle.Error
	if errors.As(err, &be) {
		return configErr(be, be.Hints...)
	}
	var all *evaluate.Errors
	if errors.As(err, &all) {
		return configErr(all, all.Hints()...)
	}
	var ee *evaluate.Error
	if errors.As(err, &ee) {
		return configErr(ee, hints(ee.Hint)...)
	}
	return ownErr(err)
}

func currentUser() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return "uid " + strconv.Itoa(os.Getuid())
}

func hints(h string) []string {
	if h == "" {
		return nil
	}
	return []string{h}
}
