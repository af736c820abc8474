package zapeval

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"time"

	"golang.org/x/sys/unix"

	"github.com/zap-go/zap/internal/evaluate"
	"github.com/zap-go/zap/internal/testhook"
)

// The bounds of an evaluation (security.md: a capped heap and process
// memory, a 30 second timeout). The evaluating process keeps to them
// itself between the interpreter's steps (evaluate.Options); the hard
// limits below stop it in the middle of any one call too, such as
// new Uint8Array(3*2**30).fill(1), which allocates and writes gigabytes
// in a single native call.
const (
	// TimeLimit is how long the evaluating process may run: the zap-eval
	// that started it kills it then.
	TimeLimit = evaluate.DefaultTimeout
	// MaxHeap is the live heap a config may build, checked every few
	// milliseconds between steps.
	MaxHeap = evaluate.DefaultMaxHeap
	// MaxMemory is the memory the evaluating process may take on once it
	// starts (RLIMIT_AS above what it holds then; the memory cgroup's
	// memory.max where there is one): MaxHeap, and room for the
	// collector's garbage above it, the runtime's metadata, the stacks and
	// the arena the runtime reserves ahead of its heap. Its peak RSS stays
	// below MaxMemory and what it held at the start (about 20 MiB).
	MaxMemory = MaxHeap + 384<<20
)

// gcPercent and memoryLimit are the garbage collector's settings in the
// evaluating process (GOGC and GOMEMLIMIT, set in the process itself, so
// the operator's environment changes neither). The collector's first goal
// is 4 MiB times GOGC/100 and each later one GOGC/100 times the live heap
// over it: at 1000 a config of 2,000 resources (some 30 MiB allocated in
// all) finishes before its first collection, where at 400 it made two or
// three, a tenth of the evaluation's CPU; a short process that builds one
// document and exits needs no memory back before it does. The soft limit
// has it collect harder instead as its heap nears 256 MiB, so a config
// that holds much isn't given 11 times as much, and the heap keeps well
// inside MaxMemory up to MaxHeap of live data.
const (
	gcPercent   = 1000
	memoryLimit = 256 << 20
)

// limitSelf is the evaluating process's first act: it sets the collector
// and its hard limits, which the config can't lift (the process has no
// privilege to raise a hard limit, and the seccomp filter refuses
// setrlimit besides).
//
// RLIMIT_AS counts address space, not memory, and the Go runtime reserves
// address space it may never use: about 1.2 GiB on amd64 before main runs
// (its page allocator's summaries and bitmaps, mapped PROT_NONE), and a
// 64 MiB arena at a time ahead of its heap. A fixed RLIMIT_AS would be
// mostly those reservations, and differ with the Go version and the
// architecture. So it is what the process holds when it limits itself
// plus MaxMemory: whatever the process maps from then on, its heap
// included, counts against that, and a reservation the heap can't make
// fails at once, however large, before a byte of it is touched. The
// runtime then dies with "fatal error: out of memory", which the parent
// reports as the memory limit. (RLIMIT_DATA would count only memory
// mapped writable, but the runtime fails to it in too many places, one of
// them a segmentation fault rather than its out-of-memory report.)
// RLIMIT_CORE 0: a crash dumps no memory, and with it no secret the
// secret gate read from the environment.
func limitSelf() error {
	debug.SetGCPercent(gcPercent)
	debug.SetMemoryLimit(memoryLimit)
	// GOMAXPROCS set, even to what it is, stops the runtime reading the
	// CPU affinity and the cgroup's CPU limit again every second: system
	// calls the filter refuses.
	runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	held, err := addressSpace()
	if err != nil {
		return err
	}
	for _, l := range []struct {
		name     string
		resource int
		max      uint64
	}{
		{"RLIMIT_CORE", unix.RLIMIT_CORE, 0},
		{"RLIMIT_AS", unix.RLIMIT_AS, held + MaxMemory},
	} {
		var cur unix.Rlimit
		if err := unix.Getrlimit(l.resource, &cur); err != nil {
			return fmt.Errorf("%s: %w", l.name, err)
		}
		// A lower limit the operator set stays.
		v := min(l.max, cur.Max)
		if err := unix.Setrlimit(l.resource, &unix.Rlimit{Cur: v, Max: v}); err != nil {
			return fmt.Errorf("set %s: %w", l.name, err)
		}
	}
	return nil
}

// addressSpace is the size of the process's address space, in bytes
// (/proc/self/statm's first field, in pages).
func addressSpace() (uint64, error) {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, err
	}
	f, _, _ := bytes.Cut(b, []byte(" "))
	pages, err := strconv.ParseUint(string(f), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("/proc/self/statm: %q", b)
	}
	return pages * uint64(os.Getpagesize()), nil
}

// timeLimit is TimeLimit, or in a zap-eval built for the tests
// (internal/testhook) what ZAPEVAL_TEST_TIMEOUT says, so a script can
// see the watchdog act without waiting 30 seconds.
func timeLimit() time.Duration {
	if testhook.On() {
		if d, err := time.ParseDuration(os.Getenv("ZAPEVAL_TEST_TIMEOUT")); err == nil && d > 0 {
			return d
		}
	}
	return TimeLimit
}

// memoryLimitError and timeLimitError are the refusals for a config that
// passed a bound: the same words whether the evaluating process caught
// itself between steps or a hard limit stopped it.
func memoryLimitError() error {
	return configErr(fmt.Errorf("the config used more than %d MiB of memory", MaxHeap>>20), evaluate.MemoryHint)
}

func timeLimitError(d time.Duration) error {
	return configErr(fmt.Errorf("the config ran longer than %s", d), evaluate.TimeHint)
}
