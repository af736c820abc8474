package zapeval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/zap-go/zap/internal/bundle"
	"github.com/zap-go/zap/internal/envpass"
	"github.com/zap-go/zap/internal/evaluate"
	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/project"
	"github.com/zap-go/zap/internal/projfile"
	"github.com/zap-go/zap/internal/resolve"
	"github.com/zap-go/zap/internal/sandbox"
	"github.com/zap-go/zap/internal/stage"
)

// The evaluating process is zap-eval started again by zap-eval (watch.go)
// as
//
//	zap-eval --child=ROOT --owners=UID,... [--inputs-fd=4] -- CONFIG
//
// with ROOT the project the parent found walking through directories the
// owners own. Its descriptors: 0 /dev/null; 1 a pipe the declaration goes
// to; 2 a pipe only the Go runtime writes to (a crash, "out of memory"),
// which the parent reads; 3 the parent's stderr, where the config's
// console and the child's own messages go; 4 with --inputs-fd, a pipe for
// the inputs document.
const (
	childFlag  = "child"
	ownersFlag = "owners"
	// inputsFDFlag hands the evaluating process the pipe it writes the
	// inputs document to.
	inputsFDFlag = "inputs-fd"
	// childStderr is the descriptor the evaluating process reports on.
	childStderr = 3
	// childInputs is the descriptor of the inputs pipe.
	childInputs = 4
)

// isChild reports whether args start the evaluating process.
func isChild(args []string) bool {
	return len(args) > 0 && strings.HasPrefix(args[0], "--"+childFlag+"=")
}

// childMain is Main in the evaluating process.
func childMain(ctx context.Context, args []string, stdout io.Writer) int {
	if err := syscall.Fstat(childStderr, &syscall.Stat_t{}); err != nil {
		return exit.Print(os.Stderr, "zap-eval", fmt.Errorf("--%s is for the process zap-eval evaluates in, started with descriptor %d open", childFlag, childStderr))
	}
	stderr := os.NewFile(childStderr, "stderr")
	err := evaluateHere(ctx, args, stdout, stderr)
	return stage.Finish("zap-eval", usage, err, io.Discard, stderr)
}

// evaluateHere limits and walls in this process, then evaluates the
// config and writes the declaration to stdout.
func evaluateHere(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	// Read (and closed) before anything else: the config never has the
	// descriptor.
	env, err := envpass.Load()
	if err != nil {
		return ownErr(err)
	}
	if err := limitSelf(); err != nil {
		return ownErr(fmt.Errorf("limit the evaluation: %w", err))
	}
	fs := stage.NewFlagSet("zap-eval")
	root := fs.String(childFlag, "", "internal: evaluate, as the process zap-eval starts, the config of the project `ROOT` it found")
	ownerList := fs.String(ownersFlag, "", "internal: the `UIDS` whose directories zap-eval walked through to the project")
	inputsFD := fs.Int(inputsFDFlag, 0, "internal: the descriptor to write the inputs document to")
	if err := stage.Parse(fs, args); err != nil {
		return err
	}
	owners, err := parseOwners(*ownerList)
	if err != nil || fs.NArg() != 1 || (*inputsFD != 0 && *inputsFD != childInputs) {
		return ownErr(fmt.Errorf("the evaluating process's arguments %q aren't what zap-eval gives it", args))
	}
	var inputs *os.File
	if *inputsFD != 0 {
		inputs = os.NewFile(uintptr(*inputsFD), "inputs")
	}

	// Found again, as the user the evaluation runs as: the same project.
	proj, err := project.FindWith(fs.Arg(0), owners)
	if err != nil {
		return classify(err)
	}
	if proj.Root != *root {
		return configErr(fmt.Errorf("the project found as %s, %s, isn't the one found before, %s", currentUser(), proj.Root, *root))
	}
	reportCredentials(stderr)
	// From here on the process reads only the project and the packages it
	// links: not esbuild, not the config, nothing can read anything else.
	if err := sandbox.Restrict(append([]string{proj.Root}, proj.Packages...)...); err != nil {
		return sandboxErr(err, "zap-eval runs a config only inside its Landlock sandbox; run it on a kernel with Landlock enabled")
	}
	// The interpreter is made on the other core while the config is
	// bundled: neither needs the other, and nothing the config wrote runs
	// until Evaluate.
	rt := evaluate.Prepare(stderr)
	b, err := bundle.Build(proj)
	if err != nil {
		return classify(err)
	}
	// The project's root, held open: the one descriptor the filter lets
	// project files be opened under (project_text and its kin).
	files, err := projfile.Open(proj.Root)
	if err != nil {
		return ownErr(err)
	}
	defer files.Close()
	// The last wall, as late as it can be: from here on the process makes
	// only the system calls running the config, reading its project files
	// and writing its result take.
	if err := sandbox.Filter(files.FD()); err != nil {
		return sandboxErr(err, "zap-eval runs a config only behind its seccomp filter, built for amd64")
	}
	ev, err := evaluate.Evaluate(ctx, evaluate.Script{Name: b.Name, Code: b.Code, SourceMap: b.SourceMap}, evaluate.Options{
		Console: stderr,
		Export:  bundle.GlobalName,
		// The parent's watchdog is the clock: one time limit, whatever
		// the config is doing when it passes.
		Timeout:  evaluate.NoTimeout,
		MaxHeap:  MaxHeap,
		Files:    files,
		Prepared: rt,
	})
	if err != nil {
		return classify(err)
	}
	out, err := encode(ev, env.Lookup)
	if err != nil {
		return err
	}
	if err := writeInputs(inputs, b.Inputs, ev.Files); err != nil {
		return err
	}
	// The declaration is written, and stdout closed, before the
	// declaration's own checks run here: zap-eval reads it while they do,
	// and takes it only if this process then exits 0.
	if err := writeDecl(stdout, out); err != nil {
		return err
	}
	if err := ev.Check(); err != nil {
		return classify(err)
	}
	return nil
}

// sandboxErr is zap-eval's error for a sandbox that can't be made, with
// hint when the kernel or the architecture can't hold it.
func sandboxErr(err error, hint string) error {
	e := &exit.Error{Code: 1, Err: fmt.Errorf("sandbox: %w", err)}
	if errors.Is(err, sandbox.ErrUnsupported) {
		e.Hints = []string{hint}
	}
	return e
}

// writeDecl writes the declaration out and a newline to stdout, and closes
// it where it can be.
func writeDecl(stdout io.Writer, out []byte) error {
	_, err := stdout.Write(append(out, '\n'))
	if c, ok := stdout.(io.Closer); ok && err == nil {
		err = c.Close()
	}
	if err != nil {
		return ownErr(fmt.Errorf("write the declaration: %w", err))
	}
	return nil
}

// encode checks what the config declared for secrets and encodes it. The
// declaration's own checks (Evaluation.Check, each problem at its place in
// the config) are left to the caller, but for a declaration that can't be
// encoded or is too large, whose problems they report first.
func encode(ev *evaluate.Evaluation, lookup resolve.Env) ([]byte, error) {
	decl := ev.Decl
	// The secret gate runs first, so no later message can quote a secret
	// the config wrote out.
	if err := secretGate(decl, lookup); err != nil {
		var ge *gateError
		errors.As(err, &ge)
		return nil, configErr(fmt.Errorf("secret gate: %w", err), fmt.Sprintf("reference it with zap.env('%s') rather than writing it out", ge.Name))
	}
	out, err := decl.Encode()
	if err == nil && len(out) > MaxOutput {
		err = configErr(fmt.Errorf("the declaration is %d bytes, more than the %d a config may make", len(out), MaxOutput))
	} else if err != nil {
		err = ownErr(fmt.Errorf("encode the declaration: %w", err))
	}
	if err != nil {
		if cerr := ev.Check(); cerr != nil {
			return nil, classify(cerr)
		}
		return nil, err
	}
	// Not read back here: zap-eval reads these bytes with the strict reader
	// the other stages use, Validate and the secret gate before it writes
	// them (run), which is where a config can't smuggle anything past them,
	// this process being the config's.
	return out, nil
}

// formatOwners and parseOwners carry the owners the parent walked with.
func formatOwners(owners []uint32) string {
	s := make([]string, len(owners))
	for i, o := range owners {
		s[i] = strconv.FormatUint(uint64(o), 10)
	}
	return strings.Join(s, ",")
}

func parseOwners(s string) ([]uint32, error) {
	var owners []uint32
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.ParseUint(f, 10, 32)
		if err != nil {
			return nil, err
		}
		owners = append(owners, uint32(n))
	}
	return owners, nil
}
