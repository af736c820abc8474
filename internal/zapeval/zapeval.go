// Package zapeval is zap-eval, the evaluation stage: it runs a zap.ts config
// in a sandbox and writes the declaration it makes.
//
// Usage:
//
//	zap-eval [--inputs FILE] [CONFIG]
//
// zap-eval finds the config's project (internal/project: the nearest
// directory at or above CONFIG, default ./zap.ts, whose package.json holds
// more than "type" and "sideEffects"), walls itself in with Landlock so it can
// read nothing but that project and the packages its node_modules links
// (internal/sandbox), bundles the config and the modules it imports
// (internal/bundle, esbuild), runs the bundle in an
// interpreter with no clock, no randomness, no environment and no I/O
// (internal/evaluate, goja), checks the declaration it made against the form
// checks and the structural gate (declaration.Validate), and writes it to
// stdout as canonical JSON and a newline. What the config prints with
// console goes to stderr.
//
// With --inputs FILE it also writes, to FILE, the evaluation's inputs
// (evalcache.Inputs, "zap.evalinputs/1"): every module and package.json the
// bundle read, each with the blake3 of the bytes read, and every path whose
// absence decided a resolution, sorted by path. FILE is opened (created,
// mode 600, or truncated) before anything else, so the sandbox, which
// closes every write, still lets zap-eval write it; it is written only
// when the declaration is, just before it. stdout stays the declaration
// alone. The zap eval cache (internal/evalcache) keeps the list.
//
// It never evaluates as root. Run as root, it runs itself again, before
// bundling, as the user who ran sudo (SUDO_UID, in the group SUDO_GID) when
// that user owns the project, otherwise as the project's owner in its
// primary group, never in group 0 and with no supplementary groups; that
// zap-eval finds the project again, must find the same one, and only then
// walls itself in. A project root owns, one that is or holds the user's
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
// file, the field or the resource; 1 zap-eval's own problem (the output
// can't be written, a kernel that can't hold the sandbox, an internal error).
package zapeval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"runtime/debug"
	"strconv"

	"github.com/zap-go/zap/internal/stage"

	"github.com/zap-go/zap/internal/bundle"
	"github.com/zap-go/zap/internal/evaluate"
	"github.com/zap-go/zap/internal/project"
	"github.com/zap-go/zap/internal/sandbox"
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

Exit status: 0 the declaration was written, 2 the config has a problem
(the message says which and where), 1 zap-eval couldn't run or write.
`

// MaxOutput is the largest declaration zap-eval writes, in bytes.
const MaxOutput = 64 << 20

func configErr(err error, hints ...string) error { return stage.BadInput(err, hints...) }
func ownErr(err error) error                     { return stage.InWorld(err) }

// Main runs zap-eval with args and returns its exit code.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	err := run(ctx, args, stdout, stderr)
	if err == errDone {
		return 0
	}
	var done *stage.Error
	if errors.As(err, &done) && done.Err == errDone {
		// The zap-eval run as the dropped user said what there was to say.
		return done.Code
	}
	return stage.Finish("zap-eval", usage, err, stdout, stderr)
}

// gcPercent and memoryLimit are the garbage collector's settings for an
// evaluation, unless the operator set GOGC or GOMEMLIMIT: a short process
// that builds one document and exits does a third less work collecting at
// 4 times its live heap rather than 2, and the soft limit has it collect
// harder instead as its heap nears 256 MiB, so a config that holds much
// isn't given 5 times as much.
const (
	gcPercent   = 400
	memoryLimit = 256 << 20
)

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(gcPercent)
		debug.SetMemoryLimit(memoryLimit)
	}
	fs := stage.NewFlagSet("zap-eval")
	dropped := fs.String(dropFlag, "", "internal: the project root zap-eval found as root, before dropping to its owner")
	inputsPath := fs.String("inputs", "", "write the evaluation's inputs to `FILE`")
	inputsFD := fs.Int(inputsFDFlag, 0, "internal: the descriptor the dropped zap-eval writes its inputs to")
	if err := stage.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return configErr(fmt.Errorf("want at most one config, not %d arguments", fs.NArg()), "run zap-eval --help for its usage")
	}
	config := "zap.ts"
	if fs.NArg() == 1 {
		config = fs.Arg(0)
	}
	inputs, err := openInputs(*inputsPath, *inputsFD)
	if err != nil {
		return err
	}
	if inputs != nil {
		defer inputs.Close()
	}

	owners := project.Owners()
	if *dropped != "" {
		if os.Geteuid() == 0 {
			return ownErr(errors.New("--" + dropFlag + " is for the zap-eval that root re-executes as the project's owner"))
		}
		// Root walked its own directories too: find the same project.
		owners = append(owners, 0)
	}
	proj, err := project.FindWith(config, owners)
	if err != nil {
		return classify(err)
	}
	if *dropped != "" && proj.Root != *dropped {
		return configErr(fmt.Errorf("the project found as %s, %s, isn't the one found as root, %s", currentUser(), proj.Root, *dropped))
	}
	// The evaluator never runs as root: run as root, zap-eval runs itself
	// again as the user the project belongs to, who then walls itself in.
	if os.Geteuid() == 0 && !evalAsRootInTest() {
		acct, err := dropTarget(proj, os.Getenv, lookupPasswd)
		if err != nil {
			return err
		}
		return reexec(ctx, acct, proj, inputs, stdout, stderr)
	}
	reportCredentials(stderr)
	// From here on the process reads only the project and the packages it
	// links: not esbuild, not the config, nothing can read anything else.
	if err := sandbox.Restrict(append([]string{proj.Root}, proj.Packages...)...); err != nil {
		e := &stage.Error{Code: 1, Err: fmt.Errorf("sandbox: %w", err)}
		if errors.Is(err, sandbox.ErrUnsupported) {
			e.Hints = []string{"zap-eval runs a config only inside its Landlock sandbox; run it on a kernel with Landlock enabled"}
		}
		return e
	}
	b, err := bundle.Build(proj)
	if err != nil {
		return classify(err)
	}
	decl, err := evaluate.Run(ctx, evaluate.Script{Name: b.Name, Code: b.Code, SourceMap: b.SourceMap}, evaluate.Options{
		Console: stderr,
		Export:  bundle.GlobalName,
	})
	if err != nil {
		return classify(err)
	}
	// The secret gate runs first, so no later message can quote a secret
	// the config wrote out.
	if err := secretGate(decl, os.LookupEnv); err != nil {
		var ge *gateError
		errors.As(err, &ge)
		return configErr(fmt.Errorf("secret gate: %w", err), fmt.Sprintf("reference it with zap.env('%s') rather than writing it out", ge.Name))
	}
	if err := decl.Validate(); err != nil {
		return configErr(err)
	}
	out, err := decl.Encode()
	if err != nil {
		return ownErr(fmt.Errorf("encode the declaration: %w", err))
	}
	if len(out) > MaxOutput {
		return configErr(fmt.Errorf("the declaration is %d bytes, more than the %d a config may make", len(out), MaxOutput))
	}
	// The declaration must read back as what was validated: a config can't
	// smuggle anything past the strict reader the other stages use.
	if _, err := declaration.Read(out); err != nil {
		return ownErr(fmt.Errorf("the declaration doesn't read back: %w", err))
	}
	if err := writeInputs(inputs, b.Inputs); err != nil {
		return err
	}
	if _, err := stdout.Write(append(out, '\n')); err != nil {
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
