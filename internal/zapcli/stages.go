package zapcli

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
)

// stages runs Zap's stages, found in one directory: beside zap's own
// executable, never on PATH, so the stages that run are the ones installed
// with this zap.
type stages struct {
	dir    string
	env    []string
	stderr io.Writer // where a stage's diagnostics go when it succeeds
	// bigEnv is the descriptor of the env file's long variables
	// (internal/envpass) the stages that resolve references get; nil for
	// none.
	bigEnv *os.File
	// gc is the GOGC the reading stages (zap-detect, zap-plan) run with,
	// "" for the operator's own (useGC).
	gc string
}

// gcPercent is the garbage collector's target for zap and the stages that
// read a pass's documents: each is a short process that decodes a document
// and exits, for which collecting at 4 times the live heap rather than 2
// saves a third of their work for some megabytes more.
const gcPercent = 400

// useGC has zap-detect and zap-plan run with GOGC=gcPercent, unless the
// operator set GOGC or the config references it (then a stage's
// environment is exactly the operator's, as ever).
func (s *stages) useGC(getenv func(string) string, referenced func(string) bool) {
	if getenv("GOGC") == "" && !referenced("GOGC") {
		s.gc = strconv.Itoa(gcPercent)
	}
}

func (a *app) stages() (*stages, error) {
	dir := a.stageDir
	if dir == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fail(1, fmt.Sprintf("can't find zap's own executable, beside which its stages are installed: %v", err))
		}
		dir = filepath.Dir(exe)
	}
	// The operator's own ZAP_ENV_FD names no descriptor a stage gets.
	return &stages{dir: dir, env: withoutVar(a.environ, envpass.FDVar), stderr: a.stderr, bigEnv: a.bigEnv}, nil
}

func (s *stages) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(s.dir, name), args...)
	cmd.Args[0] = name
	cmd.Env = s.env
	if s.gc != "" && (name == "zap-detect" || name == "zap-plan") {
		cmd.Env = append(append([]string{}, s.env...), "GOGC="+s.gc)
	}
	if s.bigEnv != nil && (name == "zap-detect" || name == "zap-exec") {
		// Not a /proc/self/fd path: nothing to release, no error.
		_, _ = envpass.Attach(cmd, s.bigEnv)
	}
	return cmd
}

// run runs a stage with stdin and returns what it wrote on stdout.
func (s *stages) run(ctx context.Context, name string, stdin []byte, args ...string) ([]byte, error) {
	return s.runCmd(s.command(ctx, name, args...), name, stdin)
}

// runCmd runs cmd, the stage name, with stdin and returns what it wrote on
// stdout.
func (s *stages) runCmd(cmd *exec.Cmd, name string, stdin []byte) ([]byte, error) {
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		return nil, s.failure(name, err, stderr.Bytes())
	}
	s.passOn(stderr.Bytes())
	return stdout.Bytes(), nil
}

// stream runs a stage with stdin and hands each line it writes on stdout to
// line as it comes. It returns the stage's failure, if any, after the last
// line; an error from line stops the stage.
func (s *stages) stream(ctx context.Context, name string, stdin []byte, line func([]byte) error, args ...string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := s.command(ctx, name, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return s.failure(name, err, nil)
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
		return s.failure(name, err, stderr.Bytes())
	}
	s.passOn(stderr.Bytes())
	return nil
}

// passOn copies what a stage that succeeded said on stderr (a warning).
func (s *stages) passOn(stderr []byte) {
	if len(stderr) > 0 {
		s.stderr.Write(stderr)
	}
}

// stageError is a stage that failed, with the exit code zap passes on.
type stageError struct {
	*exitError
	stage string
	// status is the stage's own exit status, -1 when it didn't exit.
	status int
}

func (e *stageError) Unwrap() error { return e.exitError }

// failure turns a stage's failure into zap's: its exit 2 is zap's exit 2,
// printing the stage's message; its exit 1 is zap's exit 1; anything else
// (a crash, a signal, a stage that can't start) is exit 1 saying so. A Go
// program that panics or that the runtime stops (a fatal error) exits 2
// too, so an exit 2 whose stderr ends in the runtime's report of one
// (runtimeCrash) is a crash, not the stage's answer about its input.
func (s *stages) failure(name string, err error, stderr []byte) error {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		hint := fmt.Sprintf("zap runs its stages from its own directory (%s); reinstall Zap so they are there", s.dir)
		if errors.Is(err, syscall.E2BIG) {
			// Not a missing stage: the environment is more than the
			// kernel starts a process with, in all. Env files take at
			// most envpass.Budget of it, so the rest is the operator's.
			hint = fmt.Sprintf("the environment Zap was started with is too large to start a process with (env-file values take at most %d bytes of it; the rest go another way): unset what its commands don't need", envpass.Budget)
		}
		return &stageError{stage: name, status: -1, exitError: &exitError{code: 1,
			msg: fmt.Sprintf("can't run %s: %v", name, err), hints: []string{hint}}}
	}
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
		return &stageError{stage: name, status: status, exitError: &exitError{code: status, msg: msg, hints: hints}}
	}
	what := fmt.Sprintf("%s crashed (%v)", name, ee.ProcessState)
	if msg != "" {
		what += ":\n" + msg
	}
	return &stageError{stage: name, status: status, exitError: &exitError{code: 1, msg: what, hints: hints}}
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

// stageMessage reads a stage's diagnostics: "zap-x: message" lines, further
// lines, and hint: lines. The stage's own prefix is dropped, since zap
// prints the message as its own.
func stageMessage(name string, stderr []byte) (string, []string) {
	var msg, hints []string
	for _, l := range strings.Split(strings.TrimRight(string(stderr), "\n"), "\n") {
		switch {
		case l == "":
			continue
		case strings.HasPrefix(l, "hint: "):
			hints = append(hints, strings.TrimPrefix(l, "hint: "))
		default:
			msg = append(msg, strings.TrimPrefix(l, name+": "))
		}
	}
	return strings.Join(msg, "\n"), hints
}

// stageArgs are the flags zap-detect and zap-exec take from zap's own:
// --bootstrap.
func (a *app) stageArgs() []string {
	if a.bootstrap {
		return []string{"--bootstrap"}
	}
	return nil
}
