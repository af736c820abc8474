// Package sandbox walls the evaluating process in with Landlock: once
// Restrict returns, the process (every thread of it) can read only under the
// directories it was given, write nowhere, make no TCP connection or
// binding, signal no other process and reach no abstract unix socket. What
// it already holds open (stdin, stdout, stderr) stays usable.
//
// zap-eval calls it right after finding the config's project and before
// bundling, with the project and the packages its node_modules links: so
// neither esbuild nor the config can read a file outside them, whatever a
// link or a resolver bug would lead to. Whether a path exists stays visible:
// Landlock doesn't restrict stat.
//
// The rules are Landlock ABI 7's, applied best effort: a kernel with ABI 6
// enforces what it knows. A kernel below ABI 6 can't scope signals and
// abstract unix sockets, and one without Landlock can't hold the walls at
// all: Restrict refuses to run there (ErrUnsupported) rather than evaluate
// unwalled.
//
// Filter is the second wall (filter.go): a seccomp filter, applied to every
// thread once the config is bundled, that lets through only the system
// calls running the config takes. No open, socket, exec, fork, ptrace or
// mount gets past it, whatever Landlock would have said; the one way to a
// file is openat2 under the project root's descriptor, for the project
// files a config reads for content (internal/projfile). It is built for
// amd64; elsewhere it refuses (ErrUnsupported).
package sandbox

import (
	"errors"
	"fmt"
	"os"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"

	"github.com/zap-go/zap/internal/testhook"
)

// MinABI is the oldest Landlock ABI the sandbox runs on.
const MinABI = 6

// ErrUnsupported is a kernel that can't hold the sandbox.
var ErrUnsupported = errors.New("this kernel can't hold the evaluator's sandbox")

// Restrict restricts the whole process to reading under dirs.
func Restrict(dirs ...string) error {
	if abi := ABI(); abi < MinABI {
		return fmt.Errorf("%w: its Landlock ABI is %d, and the sandbox needs %d or later (Linux 6.12)", ErrUnsupported, abi, MinABI)
	}
	if err := pinTaskDir(); err != nil {
		return err
	}
	rules := []landlock.Rule{landlock.RODirs(dirs...).IgnoreIfMissing()}
	// A coverage-instrumented test binary writes its counters at exit;
	// let it, or the tests' stderr would carry the failure. Only a test
	// binary, or one built with the zaptest tag, honours this.
	if d := os.Getenv("GOCOVERDIR"); d != "" && testhook.On() {
		rules = append(rules, landlock.RWDirs(d).IgnoreIfMissing())
	}
	return landlock.V7.BestEffort().Restrict(rules...)
}

// ABI is the Landlock ABI version the kernel supports, 0 when it has none.
func ABI() int {
	v, err := ll.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
}
