// Package zapcli is zap, the front end: the commands a user types, composing
// the stages zap-eval, zap-detect, zap-plan and zap-exec, which it runs as
// subprocesses found beside its own executable (never on PATH), handing them
// the operator environment.
//
// Usage:
//
//	zap                                   prints the loop and the commands
//	zap version                           prints zap <version>
//	zap lock [CONFIG]                     pins the zap-eval the config is evaluated with
//	zap config validate [CONFIG]          evaluates the config only
//	zap plan [--diff] [CONFIG]            detects and prints the plan
//	zap apply [--wetrun] [--expect-plan HASH] [--json] [CONFIG]
//	zap detect [CONFIG]                   detection alone, one line per resource
//	zap status [CONFIG]                   the last run, offline
//
// CONFIG defaults to ./zap.ts. --help on any command prints its flags.
// plan, apply and detect take --bootstrap: zap-detect and zap-exec connect
// as the remote target's bootstrap_user (a --bootstrap plan is its own plan,
// binding only a --bootstrap wetrun).
// Every command that reads a config takes --env-file PATH: NAME=VALUE lines
// (internal/envfile) loaded into the operator environment before anything
// resolves, the file's value winning over the shell's; an error in it names
// the file, the line and the name, never a value (exit 2).
//
// # Secrets
//
// Once the config is evaluated, one Masker built from every referenced
// secret's value masks everything zap writes (stdout, stderr, --json event
// lines, kept valid) and the report's hashes. A host or connecting user
// behind a secret: the plan shows no plan_hash (UNBINDABLE) and isn't a
// preview, a masked host keeps no report (UNRECORDED), and a wetrun is
// refused (exit 2); one that resolves to nothing stops before connecting
// (exit 2). A value holding a single quote, a NUL or U+FDD0/U+FDD1 in a
// planned command warns in plan and a dry apply, and refuses a wetrun
// (exit 2).
//
// # The toolchain pin
//
// Every command that evaluates takes --evaluator PATH (else $ZAP_EVAL,
// else the zap-eval beside zap; absolute when named) and runs it only when
// its blake3 is the toolchain pin in the config's zap.lock (internal/lock),
// exiting 2 when there is no pin or the binary is off it. zap lock is the
// one command that records the pin instead of checking it. The binary is
// opened once and what runs is the sealed memfd copy that was hashed
// (internal/pin), or on a pin cache hit the descriptor that was checked.
//
// The pipeline of a pass is
//
//	zap-eval CONFIG > declaration; zap-detect < declaration > observations;
//	zap-plan < observations > plan; zap-exec < plan > events
//
// and every pass that detects writes the config's last-run report for the
// host under $ZAP_HOME or ~/.zap (internal/state), which also holds the
// preview a wetrun binds to.
//
// # Exit codes
//
// 2 is an established answer about your inputs, 1 is a problem in the
// world or a claim Zap couldn't establish; where both apply, 1 wins for the
// verdicts (undetermined or unverifiable outranks pending changes).
//
//	command            0                          1                                          2
//	version            printed
//	lock               pinned                     zap-eval crashed or can't run; I/O         config error; evaluator refused
//	config validate    ok: N resource(s)          zap-eval crashed or can't run              config error (eval, gates)
//	plan               the plan (changes or not) a hold, an unset reference; world errors   input error
//	apply (dry)        no changes                 a hold, an unset reference; world errors   changes pending; input error
//	apply --wetrun     every change ok and the    a change failed, RESIDUAL, a hold, the     refused (no review, the plan
//	                   reading again converged    reading again failed; world errors         moved, the preview was claimed,
//	                                                                                         declined), an unset reference,
//	                                                                                         input error
//	detect             every resource read        a resource undetermined, an unset          input error
//	                                              reference; world errors
//	status             the last run read every    no last run (unless nothing is declared),  input error
//	                   declared resource          the last run held something, was
//	                                              unverifiable, or didn't read a declared
//	                                              resource
//
// Input errors (2): a usage error (an unknown flag, --expect-plan or --json
// without --wetrun, a stray argument); a stage that exits 2 (a config that
// doesn't evaluate or pass the gates, a remote target); HOME or ZAP_HOME
// unset or not absolute; a state directory or report that isn't the user's
// own. World errors (1): a stage that exits 1, crashes or can't be started
// (a Go panic or fatal error exits 2, and reads as the crash it is by the
// runtime's report ending the stage's stderr, "<stage> crashed"); a
// document a stage wrote that doesn't read; state that can't be written.
//
// A remote target: a stage that can't connect exits 1 with "cannot connect
// to HOST: REASON" and hints before any verdict; zap prints it as its own
// error, exits 1 and keeps no report. A stage's exit 2 before connecting (a
// host or user resolving to nothing, --bootstrap with no bootstrap_user, a
// plan for another user) is zap's exit 2. Reports are kept under the host
// the target resolves to (context.target).
//
// A local pass that may need root (a read zap-detect makes as root or of a
// path outside the operator's home; on a wetrun, a root step or a file
// operation outside the home or for another owner or group), run by an
// account whose sudo -n fails, on an interactive terminal: zap runs sudo -v
// on the terminal once, with no deadline, before detecting, since the
// stages only ever use sudo -n. Without a terminal it never prompts, and
// such a read holds (sudo authentication failed). A config that touches
// only the operator's own files never runs sudo.
//
// Errors print as "error: message", further lines of the message indented
// under it, and advice after it at the left margin as "hint: ...".
//
// # --json
//
// zap apply --wetrun --json writes only JSON event lines to stdout
// (pkg/events): zap-exec's events as it wrote them, then one held event per
// held resource, one residual event per resource that still doesn't read
// converged, observe_failed when the reading again failed, and a final done
// event with the exit code and the counts (and the error, when zap-exec
// stopped mid-run). A plan with no changes runs nothing: zap writes its
// run_started (0 changes) and run_ok itself, then the held events and done.
// A wetrun that ends before its first event (a refusal, an error) leaves
// stdout empty and prints its text report to stderr.
//
// # State
//
// Every pass that detects records the config's last-run report for the host
// (internal/state): zap plan and a dry zap apply as a preview, zap detect as
// a pass that is not one. A wetrun that refuses or is declined records its
// plan as the new preview. A wetrun that executes first claims the preview
// it bound to (renaming the report away, which only one of two concurrent
// runs can do), records its own pass (not a preview), executes, and records
// the observe pass as the last word.
package zapcli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"time"

	"github.com/zap-go/zap/internal/mask"
	"github.com/zap-go/zap/internal/render"
	"github.com/zap-go/zap/internal/stages"
)

// Version is zap's version, set at build time with
// -ldflags "-X github.com/zap-go/zap/internal/zapcli.Version=v1.2.3".
var Version = ""

// version is Version, or the module version the build recorded.
func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

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
		debug.SetGCPercent(stages.GCPercent)
	}
	a.wrapOutputs()
	defer a.flushOutputs()
	defer func() {
		if a.bigEnv != nil {
			a.bigEnv.Close()
		}
	}()
	err := a.run(ctx, args)
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if !ee.quiet {
			render.Error(a.stderr, ee.msg, ee.hints...)
		}
		return ee.code
	}
	var se *stages.Error
	if errors.As(err, &se) {
		render.Error(a.stderr, se.Msg, se.Hints...)
		return se.Code
	}
	render.Error(a.stderr, err.Error())
	return 1
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
	// bigEnv holds the env file's variables too long for a child's
	// environment (internal/envpass), for the stages that resolve
	// references; nil when there are none.
	bigEnv *os.File

	// rawStderr is stderr as given (the terminal check needs the file);
	// stdout and stderr are masked writers over the given ones.
	rawStderr        io.Writer
	outMask, errMask *maskedWriter
	// masker masks every secret the config references, once it is
	// evaluated; nil before.
	masker *mask.Masker
}

// exitError is a failure with its exit code. A quiet one has already said
// what it had to (a report was printed) and only sets the code.
type exitError struct {
	code  int
	msg   string
	hints []string
	quiet bool
}

func (e *exitError) Error() string { return e.msg }

// fail is an error exiting code, printed as error: msg with hints.
func fail(code int, msg string, hints ...string) error {
	return &exitError{code: code, msg: msg, hints: hints}
}

// failf is fail with a formatted message and no hint.
func failf(code int, format string, args ...any) error {
	return &exitError{code: code, msg: fmt.Sprintf(format, args...)}
}

// exit sets the exit code of a command whose report already said why.
func exit(code int) error {
	if code == 0 {
		return nil
	}
	return &exitError{code: code, quiet: true}
}
