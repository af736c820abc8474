// Package stages runs Zap's stage programs (zap-eval, zap-detect, zap-plan,
// zap-exec) for the front end: found in one directory, never on PATH, with
// the operator environment, and a stage's failure turned into the exit code
// and message zap passes on (an exit.Error wrapping an Error).
package stages

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"

	"github.com/zap-go/zap/internal/envpass"
	"github.com/zap-go/zap/internal/exit"
)

// Runner runs Zap's stages, found in one directory: beside zap's own
// executable, never on PATH, so the stages that run are the ones installed
// with this zap.
type Runner struct {
	dir    string
	env    []string
	stderr io.Writer // where a stage's diagnostics go when it succeeds
	// bigEnv is the descriptor of the env file's long variables
	// (internal/envpass) the stages that resolve references get; nil for
	// none.
	bigEnv *os.File
	// gc is the GOGC the reading stages (zap-detect, zap-plan) run with,
	// "" for the operator's own (UseGC).
	gc string
}

// GCPercent is the garbage collector's target for zap and the stages that
// read a pass's documents: each is a short process that decodes a document
// and exits, for which collecting at 4 times the live heap rather than 2
// saves a third of their work for some megabytes more.
const GCPercent = 400

// UseGC has zap-detect and zap-plan run with a GOGC of zap's choosing
// (GCPercent, less for a large input: command), unless the operator set GOGC or the config references it (then a stage's
// environment is exactly the operator's, as ever).
func (s *Runner) UseGC(getenv func(string) string, referenced func(string) bool) {
	if getenv("GOGC") == "" && !referenced("GOGC") {
		s.gc = strconv.Itoa(GCPercent)
	}
}

// New is the Runner of the stages in dir ("" for beside zap's own
// executable), with the operator environment env. stderr takes what a stage
// that succeeds says there; bigEnv (or nil) is the env file's long
// variables, for the stages that resolve references.
func New(dir string, env []string, stderr io.Writer, bigEnv *os.File) (*Runner, error) {
	if dir == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, exit.InWorld(fmt.Errorf("can't find zap's own executable, beside which its stages are installed: %w", err))
		}
		dir = filepath.Dir(exe)
	}
	// The operator's own ZAP_ENV_FD names no descriptor a stage gets.
	return &Runner{dir: dir, env: WithoutVar(env, envpass.FDVar), stderr: stderr, bigEnv: bigEnv}, nil
}

// Dir is the directory the stages are found in.
func (s *Runner) Dir() string { return s.dir }

// Command is the command that runs the stage name with args.
func (s *Runner) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	return s.command(ctx, name, -1, args...)
}

// command is Command for a stage given input bytes on stdin (-1 for not
// known): a reading stage's GOGC is GCPercentFor the live heap such an
// input takes (StageLivePerByte), or GCPercent when not known.
func (s *Runner) command(ctx context.Context, name string, input int, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(s.dir, name), args...)
	cmd.Args[0] = name
	cmd.Env = s.env
	if s.gc != "" && (name == "zap-detect" || name == "zap-plan") {
		gc := s.gc
		if input >= 0 {
			gc = strconv.Itoa(GCPercentFor(uint64(input) * StageLivePerByte))
		}
		cmd.Env = append(append([]string{}, s.env...), "GOGC="+gc)
	}
	if s.bigEnv != nil && (name == "zap-detect" || name == "zap-exec" || name == "zap-deploy") {
		// Not a /proc/self/fd path: nothing to release, no error.
		_, _ = envpass.Attach(cmd, s.bigEnv)
	}
	return cmd
}

// Run runs a stage with stdin and returns what it wrote on stdout.
func (s *Runner) Run(ctx context.Context, name string, stdin []byte, args ...string) ([]byte, error) {
	return s.RunCmd(s.command(ctx, name, len(stdin), args...), name, stdin)
}

// RunCmd runs cmd, the stage name, with stdin and returns what it wrote on
// stdout.
func (s *Runner) RunCmd(cmd *exec.Cmd, name string, stdin []byte) ([]byte, error) {
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout Output
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		return nil, s.Failure(name, err, stderr.Bytes())
	}
	s.PassOn(stderr.Bytes())
	return fit(stdout.Bytes()), nil
}

// fit is b in an array of its own length when the one it is in (an
// Output's one chunk) is an eighth or more larger: zap holds a stage's
// document for the rest of the pass.
func fit(b []byte) []byte {
	if cap(b)-len(b) < len(b)/8 {
		return b
	}
	return bytes.Clone(b)
}

// Stream runs a stage with stdin and hands each line it writes on stdout to
// line as it comes. It returns the stage's failure, if any, after the last
// line; an error from line stops the stage.
func (s *Runner) Stream(ctx context.Context, name string, stdin []byte, line func([]byte) error, args ...string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := s.Command(ctx, name, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return s.Failure(name, err, nil)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	var lineErr error
	for sc.Scan() {
		if lineErr = line(sc.Bytes()); lineErr != nil {
			cancel()
			break
		}
	}
	if lineErr == nil {
		lineErr = sc.Err()
	}
	_, _ = io.Copy(io.Discard, out)
	err = cmd.Wait()
	if lineErr != nil {
		return lineErr
	}
	if err != nil {
		return s.Failure(name, err, stderr.Bytes())
	}
	s.PassOn(stderr.Bytes())
	return nil
}

// PassOn copies what a stage that succeeded said on stderr (a warning).
func (s *Runner) PassOn(stderr []byte) {
	if len(stderr) > 0 {
		s.stderr.Write(stderr)
	}
}

// Error is a stage that failed: which, how, and what it said. Failure
// wraps it in the exit.Error that gives zap's exit code and the stage's
// hints.
type Error struct {
	Stage string
	// Status is the stage's own exit status, -1 when it didn't exit.
	Status int
	// Msg is what zap prints as the failure: the stage's message.
	Msg string
	// Err is what running the stage returned: an *exec.ExitError when it
	// ran, the reason it couldn't start otherwise.
	Err error
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

// Failure turns a stage's failure into zap's: its exit 2 is zap's exit 2,
// printing the stage's message; its exit 1 is zap's exit 1; anything else
// (a crash, a signal, a stage that can't start) is exit 1 saying so. A Go
// program that panics or that the runtime stops (a fatal error) exits 2
// too, so an exit 2 whose stderr ends in the runtime's report of one
// (runtimeCrash) is a crash, not the stage's answer about its input.
func (s *Runner) Failure(name string, err error, stderr []byte) error {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		hint := fmt.Sprintf("zap runs its stages from its own directory (%s); reinstall Zap so they are there", s.dir)
		if errors.Is(err, syscall.E2BIG) {
			// Not a missing stage: the environment is more than the
			// kernel starts a process with, in all. Env files take at
			// most envpass.Budget of it, so the rest is the operator's.
			hint = fmt.Sprintf("the environment Zap was started with is too large to start a process with (env-file values take at most %d bytes of it; the rest go another way): unset what its commands don't need", envpass.Budget)
		}
		return exit.InWorld(&Error{Stage: name, Status: -1, Msg: fmt.Sprintf("can't run %s: %v", name, err), Err: err}, hint)
	}
	warnings, stderr := splitWarnings(stderr)
	s.PassOn(warnings)
	msg, hints := stageMessage(name, stderr)
	status := ee.ExitCode()
	crashed := status == 2 && runtimeCrash(name, stderr)
	switch {
	case crashed:
		hints = append(hints, fmt.Sprintf("a crash is a bug in %s: please report it with the lines above", name))
	case status == 1, status == 2:
		if msg == "" {
			msg = fmt.Sprintf("%s failed (exit status %d) and said nothing", name, status)
		}
		return &exit.Error{Code: status, Err: &Error{Stage: name, Status: status, Msg: msg, Err: err}, Hints: hints}
	}
	what := fmt.Sprintf("%s crashed (%v)", name, ee.ProcessState)
	if msg != "" {
		what += ":\n" + msg
	}
	return exit.InWorld(&Error{Stage: name, Status: status, Msg: what, Err: err}, hints...)
}

// goroutineHeader is the first line of a goroutine's traceback in the Go
// runtime's report: "goroutine 1 [running]:", with more words before the
// bracket under some GOTRACEBACK settings.
var goroutineHeader = regexp.MustCompile(`^goroutine [0-9]+ .*\[.+\]:$`)

// runtimeCrash reports whether a stage's stderr ends in the Go runtime's
// report of a crash rather than in the stage's own diagnostic. A stage
// says why it exits 2 in a "<name>: " line, last (stage.Finish); the
// runtime writes its report last of all: a line "panic: VALUE" (a panic
// nobody recovered) or "fatal error: MESSAGE" (a concurrent map write, a
// deadlock, running out of memory or stack), then, unless GOTRACEBACK=none
// leaves them out, a blank line and the tracebacks ("goroutine N [...]:",
// or "runtime stack:"). So the report counts only after the stage's last
// own line, and only in that form: text a config prints (zap-eval writes
// what it logs to stderr) comes before the stage's message, and a message
// that merely holds the word doesn't end in the report's form.
func runtimeCrash(name string, stderr []byte) bool {
	lines := strings.Split(strings.TrimRight(string(stderr), "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], name+": ") {
			lines = lines[i+1:]
			break
		}
	}
	for i, l := range lines {
		if !strings.HasPrefix(l, "panic: ") && !strings.HasPrefix(l, "fatal error: ") {
			continue
		}
		// With no tracebacks, the report ends in the panics this one was
		// raised in and the signal behind it.
		j := i + 1
		for j < len(lines) && (strings.HasPrefix(lines[j], "\tpanic: ") || strings.HasPrefix(lines[j], "panic: ") || strings.HasPrefix(lines[j], "[signal ")) {
			j++
		}
		if j == len(lines) {
			return true
		}
		for k := i + 1; k+1 < len(lines); k++ {
			if lines[k] == "" && (goroutineHeader.MatchString(lines[k+1]) || lines[k+1] == "runtime stack:") {
				return true
			}
		}
	}
	return false
}

// splitWarnings takes out of a failed stage's stderr the warning lines it
// wrote before its message (a host key it recorded before the login
// failed), which zap passes on as warnings rather than as the start of the
// error.
func splitWarnings(stderr []byte) (warnings, rest []byte) {
	for len(stderr) > 0 && bytes.HasPrefix(stderr, []byte("warning: ")) {
		i := bytes.IndexByte(stderr, '\n')
		if i < 0 {
			break
		}
		warnings = append(warnings, stderr[:i+1]...)
		stderr = stderr[i+1:]
	}
	return warnings, stderr
}

// stageMessage reads a stage's diagnostics, as exit.Write prints them:
// "zap-x: message" lines, further lines indented under them, and hint:
// lines (their further lines indented too). The stage's own prefix and
// the indent are dropped, since zap prints the message as its own and
// indents it again. The message starts at the stage's last
// "zap-x: " line: what came before it is what the stage printed on the way
// (what a config logs, from zap-eval), which follows the message as
// context rather than standing in for its headline.
func stageMessage(name string, stderr []byte) (string, []string) {
	lines := strings.Split(strings.TrimRight(string(stderr), "\n"), "\n")
	var before []string
	for i := len(lines) - 1; i > 0; i-- {
		if strings.HasPrefix(lines[i], name+": ") {
			before, lines = lines[:i], lines[i:]
			break
		}
	}
	var msg, hints []string
	for _, l := range lines {
		switch {
		case l == "" || l == exit.Indent:
			continue
		case strings.HasPrefix(l, "hint: "):
			hints = append(hints, strings.TrimPrefix(l, "hint: "))
		case len(hints) > 0 && strings.HasPrefix(l, exit.Indent):
			hints[len(hints)-1] += "\n" + strings.TrimPrefix(l, exit.Indent)
		case strings.HasPrefix(l, name+": "):
			msg = append(msg, strings.TrimPrefix(l, name+": "))
		default:
			msg = append(msg, strings.TrimPrefix(l, exit.Indent))
		}
	}
	var printed []string
	for _, l := range before {
		if l != "" {
			printed = append(printed, "  "+l)
		}
	}
	if len(printed) > 0 {
		what := name + " printed before it failed"
		if name == "zap-eval" {
			what = "the config printed before it failed"
		}
		msg = append(append(msg, what+":"), printed...)
	}
	return strings.Join(msg, "\n"), hints
}

// EvalCommand readies cmd, which runs the opened evaluator, as the stage
// zap-eval: the operator environment (zap-eval reads the variables the
// secret gate looks at) with TZ=UTC, and the env file's long variables on
// their descriptor. release, once the command has run, closes what
// attaching them opened.
func (s *Runner) EvalCommand(cmd *exec.Cmd) (release func(), err error) {
	// Whatever its file is called, it is zap-eval.
	cmd.Args[0] = "zap-eval"
	cmd.Env = append(WithoutVar(s.env, "TZ"), "TZ=UTC")
	// The secret gate reads the env file's long variables too.
	return envpass.Attach(cmd, s.bigEnv)
}

// WithoutVar is env less any NAME=... entry.
func WithoutVar(env []string, name string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}
