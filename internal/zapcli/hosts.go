package zapcli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/zap-go/zap/internal/escape"
	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/render"
	"github.com/zap-go/zap/internal/review"
	"github.com/zap-go/zap/pkg/cliout"
	"github.com/zap-go/zap/pkg/plan"
)

// defaultJobs is -j's default: how many hosts a command over several runs
// at once. Each host's pass is mostly waiting on its target; four keeps a
// small operator machine responsive while a handful of hosts overlap.
const defaultJobs = 4

// maxHosts bounds how many hosts one command takes (arguments, or a hosts
// directory's entries): a handful to a few hundred is what this is for.
const maxHosts = 1000

// hostRun is one host of a command over several: its config, what its own
// run wrote, and what it came to.
type hostRun struct {
	// label names the host in every line: the config's path as given
	// (cleaned), or the hosts directory joined with the entry's name.
	label  string
	config string
	// index is the host's place in the command's hosts.
	index int
	out   lockedBuffer
	// lines, under --json, takes the host's stdout instead of out: each
	// line goes on the command's stream as it comes.
	lines *hostLines
	errs  lockedBuffer
	code  int
	// why is the host's error, masked, one line; "" when it had none or
	// its run reported it already (then the exit code says what).
	why string
	// planned is set once the host's pass made a plan.
	planned                bool
	hash                   string
	creates, updates, held int
	done                   chan struct{}
}

// setPlan records the plan the host's pass made, for the summary.
func (h *hostRun) setPlan(p *plan.Plan) {
	h.planned, h.hash, h.held = true, p.Hash, len(p.Held)
	h.creates, h.updates = 0, 0
	for _, c := range p.Changes {
		switch c.Action {
		case plan.Create:
			h.creates++
		case plan.Update:
			h.updates++
		}
	}
}

// lockedBuffer is a host's output, written from whatever goroutines its
// run writes from.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return bytes.Clone(l.b.Bytes())
}

// hostLines is a host's stdout under --json: each whole line it writes
// goes on the command's zap.hosts/1 stream at once, naming the host, so
// the stream shows each host's events as they happen; flush sends what
// is left of a last line with no newline.
type hostLines struct {
	mu   sync.Mutex
	buf  []byte
	emit func(line []byte)
}

func (w *hostLines) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		line, rest, ok := bytes.Cut(w.buf, []byte("\n"))
		if !ok {
			break
		}
		w.emit(line)
		w.buf = rest
	}
	w.buf = bytes.Clone(w.buf)
	return len(p), nil
}

func (w *hostLines) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 {
		w.emit(w.buf)
		w.buf = nil
	}
}

// jobsFlag adds -j to the flag set of a command that takes several hosts.
func (f *flagSets) jobsFlag(fs *flag.FlagSet) *flag.FlagSet {
	fs.IntVar(&f.a.jobs, "j", defaultJobs, "with several configs, run at most `N` hosts at once")
	fs.BoolVar(&f.a.failFast, "fail-fast", false, "with several configs, start no further host once one has failed (exit 1); those already running finish")
	return fs
}

// severalFlags are the flags only a command over several hosts reads.
var severalFlags = []string{"j", "fail-fast", "skip-changed"}

// oneHost refuses, for a command that runs one config, each flag of fs
// given that only several hosts read (severalFlags): given to one, it
// would change nothing, and the user meant something it doesn't do.
func oneHost(fs *flag.FlagSet) error {
	var given []string
	fs.Visit(func(f *flag.Flag) {
		if slices.Contains(severalFlags, f.Name) {
			given = append(given, flagName(f.Name))
		}
	})
	if len(given) == 0 {
		return nil
	}
	return exit.Fail(2, fmt.Sprintf("%s: read only over several configs, and this command names one", strings.Join(given, ", ")),
		"drop it, or name each host's config (or a directory holding a project per host): docs/cli.md, Several hosts in one command")
}

// flagName is a flag as the help writes it: -j, --fail-fast.
func flagName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// onConfigs is the Exec of a command that takes one config or several
// (hostConfigs): one runs as it always has (refusing fs's flags for
// several, oneHost); several run as hosts, each its own run of one.
func (a *app) onConfigs(fs *flag.FlagSet, one func(ctx context.Context, config string) error, each func(c *app, ctx context.Context, config string) error) func(context.Context, []string) error {
	return func(ctx context.Context, args []string) error {
		hosts, err := hostConfigs(args)
		if err != nil {
			return err
		}
		if hosts == nil {
			if err := oneHost(fs); err != nil {
				return err
			}
			return onConfig(one)(ctx, args)
		}
		return a.runHosts(ctx, hosts, each)
	}
}

// hostConfigs is the hosts a command's arguments name: nil for one config
// (no argument, one file, one directory holding a zap.ts, or one that
// holds no project: configFile's error), else one per argument, in order,
// or one per entry of the one directory given that holds a zap.ts, in name
// order (a hosts directory). A config named twice is refused (exit 2).
func hostConfigs(args []string) ([]*hostRun, error) {
	for _, a := range args {
		if strings.HasPrefix(a, "-") && a != "-" {
			return nil, exit.Fail(2, fmt.Sprintf("flag %s after the config: flags go before it", a))
		}
	}
	var hosts []*hostRun
	switch len(args) {
	case 0:
		return nil, nil
	case 1:
		dir := args[0]
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return nil, nil
		}
		if _, err := os.Stat(filepath.Join(dir, "zap.ts")); !errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, nil
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			sub := filepath.Join(dir, e.Name())
			if fi, err := os.Stat(filepath.Join(sub, "zap.ts")); err == nil && fi.Mode().IsRegular() {
				hosts = append(hosts, &hostRun{label: sub, config: sub})
			}
		}
		if len(hosts) == 0 {
			// configFile says the directory has no zap.ts.
			return nil, nil
		}
	default:
		for _, a := range args {
			hosts = append(hosts, &hostRun{label: filepath.Clean(a), config: a})
		}
	}
	if len(hosts) > maxHosts {
		return nil, exit.Fail(2, fmt.Sprintf("%d hosts in one command, more than the %d it takes", len(hosts), maxHosts),
			"split them over several commands")
	}
	seen := map[string]string{}
	for _, h := range hosts {
		cfg, err := configFile(h.config)
		if err != nil {
			return nil, err
		}
		if _, err := os.Stat(cfg); err != nil {
			// Refused before any host runs: a typo is no host to try.
			return nil, exit.Fail(2, fmt.Sprintf("config %s not found", escape.Line(cfg)),
				"give each host's config, or a directory holding a project per host")
		}
		abs, err := filepath.Abs(cfg)
		if err != nil {
			return nil, exit.Failf(2, "config %s: %w", escape.Line(h.config), err)
		}
		if other, ok := seen[abs]; ok {
			return nil, exit.Fail(2, fmt.Sprintf("config %s is named twice (as %s too): each host runs once",
				escape.Line(h.label), escape.Line(other)))
		}
		seen[abs] = h.label
	}
	return hosts, nil
}

// child is a run of one host within a. Its outputs are the host's own
// buffers, masked with the host's own secrets; it shares the operator
// environment a read (the env file loaded once), never asks on a terminal
// and draws no colour.
func (a *app) child(h *hostRun) *app {
	c := &app{
		stdin:     strings.NewReader(""),
		stdout:    &h.out,
		stderr:    &h.errs,
		getenv:    a.getenv,
		lookupEnv: a.lookupEnv,
		environ:   a.environ,
		now:       a.now,
		stageDir:  a.stageDir,
		evaluator: a.evaluator,
		bootstrap: a.bootstrap,
		noLock:    a.noLock,
		mintPins:  a.mintPins,
		bigEnv:    a.bigEnv,
		diff:      a.diff,
		noColor:   true,
		host:      h,
	}
	if a.json != nil {
		m := *a.json
		m.started, m.done = false, false
		c.json = &m
		h.lines = &hostLines{emit: func(line []byte) {
			a.writeHostLine(&cliout.HostLine{Format: cliout.HostsFormat, Host: h.label, Line: line})
		}}
		c.stdout = h.lines
	}
	c.wrapOutputs()
	return c
}

// hostWaits says that host h waits, from now on, for what (cliout's
// WaitSlot or WaitHosts): on the --json stream, and on the live block.
func (a *app) hostWaits(h *hostRun, what string) {
	if a.json != nil {
		a.writeHostLine(&cliout.HostLine{Format: cliout.HostsFormat, Host: h.label, Wait: what})
	}
	state := liveSlot
	if what == cliout.WaitHosts {
		state = liveOthers
	}
	a.liveLine.set(h.index, state)
}

// runHosts runs each on every host, at most a.jobs at once, each as its
// own run of one (child), and prints each host's output grouped under its
// label, in the hosts' order, as soon as it and those before it are done
// (under --json, each line of the stream as it comes instead); then the
// summary and the closing lines. Its exit code is the worst of the hosts'
// (worst).
func (a *app) runHosts(ctx context.Context, hosts []*hostRun, each func(c *app, ctx context.Context, config string) error) error {
	if err := a.loadEnvFile(); err != nil {
		return err
	}
	a.envFile = "" // loaded once, here, for every host
	jobs := a.jobs
	if jobs < 1 {
		return exit.Fail(2, fmt.Sprintf("-j %d: it takes at least 1 host at a time", jobs))
	}
	sem := make(chan struct{}, jobs)
	a.hostSlots = sem
	a.liveLine = a.live(hosts)
	var failed struct {
		sync.Mutex
		label string
	}
	for i, h := range hosts {
		h.index, h.done = i, make(chan struct{})
	}
	// Hosts start in their order, each once a slot is free.
	start := func(i int, h *hostRun) {
		go func() {
			defer close(h.done)
			defer func() { <-sem }()
			failed.Lock()
			first := failed.label
			failed.Unlock()
			if first != "" {
				// --fail-fast: a host failed, so this one doesn't start.
				h.code, h.why = 1, "not started: --fail-fast, and "+escape.Line(first)+" failed"
				if a.onSkip != nil {
					a.onSkip(h)
				}
				a.liveLine.set(i, liveSkipped)
				return
			}
			a.liveLine.set(i, liveRunning)
			a.runHost(ctx, h, each)
			a.liveLine.set(i, fmt.Sprintf("done, exit %d", h.code))
			if a.failFast && h.code == 1 {
				failed.Lock()
				if failed.label == "" {
					failed.label = h.label
				}
				failed.Unlock()
			}
		}()
	}
	// The hosts past the first -j wait for a slot from the start.
	for _, h := range hosts[min(jobs, len(hosts)):] {
		a.hostWaits(h, cliout.WaitSlot)
	}
	go func() {
		for i, h := range hosts {
			sem <- struct{}{}
			start(i, h)
		}
	}()
	for i, h := range hosts {
		<-h.done
		a.liveLine.pause()
		a.printHost(i, h)
		a.flushOutputs()
		a.liveLine.printedHosts(i + 1)
		a.liveLine.resume()
	}
	a.liveLine.done()
	a.hostsSummary(hosts)
	return exit.Reported(a.closing(hosts))
}

// runHost is one host's run, ended as main ends a run of one: its --json
// end written, its error printed once, its outputs flushed.
func (a *app) runHost(ctx context.Context, h *hostRun, each func(c *app, ctx context.Context, config string) error) {
	c := a.child(h)
	err := each(c, ctx, h.config)
	c.finishJSON(err)
	code, msg, hints := errorOf(err)
	if !exit.IsReported(err) && err != nil {
		render.Error(c.stderr, msg, hints...)
		first, _, _ := strings.Cut(msg, "\n")
		h.why = c.maskString(first)
	}
	c.flushOutputs()
	if h.lines != nil {
		h.lines.flush()
	}
	h.code = code
}

// printHost writes host i's output: its stdout under a === LABEL line (a
// blank line before every host but the first), but under --json, where
// its stdout went on the stream as it came; then its stderr on stderr,
// each line led by its label.
func (a *app) printHost(i int, h *hostRun) {
	if a.json == nil {
		out := h.out.bytes()
		if i > 0 {
			fmt.Fprintln(a.stdout)
		}
		fmt.Fprintf(a.stdout, "=== %s\n", escape.Line(h.label))
		a.stdout.Write(out)
	}
	for line := range bytes.Lines(h.errs.bytes()) {
		fmt.Fprintf(a.stderr, "%s: %s", escape.Line(h.label), line)
		if !bytes.HasSuffix(line, []byte("\n")) {
			fmt.Fprintln(a.stderr)
		}
	}
}

// writeHostLine writes one zap.hosts/1 line on stdout, whichever host's
// goroutine writes it, one line at a time.
func (a *app) writeHostLine(l *cliout.HostLine) {
	b, err := cliout.Encode(l)
	a.hostOut.Lock()
	defer a.hostOut.Unlock()
	if err != nil {
		render.Error(a.stderr, "encode a --json line: "+err.Error())
		return
	}
	a.stdout.Write(b)
}

// hostsSummary writes the summary: under --json as the last zap.hosts/1
// line; else a table (host, creates, updates, held, plan_hash) and the
// combined plan_hash, when some host made a plan.
func (a *app) hostsSummary(hosts []*hostRun) {
	hashes := make([]string, len(hosts))
	planned := false
	for i, h := range hosts {
		hashes[i] = h.hash
		planned = planned || h.planned
	}
	combined := review.Combined(hashes)
	if a.json != nil {
		s := &cliout.HostsSummary{Exit: worst(hosts), CombinedPlanHash: combined}
		for _, h := range hosts {
			r := cliout.HostResult{Host: h.label, Exit: h.code, Error: h.why, PlanHash: h.hash}
			if h.planned {
				r.Creates, r.Updates, r.Held = &h.creates, &h.updates, &h.held
			}
			s.Hosts = append(s.Hosts, r)
		}
		a.writeHostLine(&cliout.HostLine{Format: cliout.HostsFormat, Summary: s})
		a.json.done = true
		return
	}
	if !planned {
		return
	}
	fmt.Fprintln(a.stdout)
	a.writeSummary(a.stdout, hosts, combined)
}

// writeSummary writes the summary table and the combined plan_hash on w.
func (a *app) writeSummary(w io.Writer, hosts []*hostRun, combined string) {
	rows := [][]string{{"HOST", "CREATES", "UPDATES", "HELD", "PLAN_HASH"}}
	for _, h := range hosts {
		if !h.planned {
			rows = append(rows, []string{escape.Line(h.label), "-", "-", "-", fmt.Sprintf("(no plan: exit %d)", h.code)})
			continue
		}
		rows = append(rows, []string{escape.Line(h.label), fmt.Sprint(h.creates), fmt.Sprint(h.updates), fmt.Sprint(h.held), h.hash})
	}
	writeTable(w, rows)
	if combined != "" {
		fmt.Fprintf(w, "combined plan_hash: %s\n", combined)
	} else {
		fmt.Fprintln(w, "no combined plan_hash: a host made no plan")
	}
}

// writeTable writes rows in columns two spaces apart, the last unpadded.
func writeTable(w io.Writer, rows [][]string) {
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	for _, r := range rows {
		var b strings.Builder
		for i, c := range r {
			if i == len(r)-1 {
				b.WriteString(c)
				break
			}
			b.WriteString(c + strings.Repeat(" ", width[i]-len([]rune(c))+2))
		}
		fmt.Fprintln(w, b.String())
	}
}

// closing writes, on stderr, which hosts failed and why, and returns the
// worst exit code.
func (a *app) closing(hosts []*hostRun) int {
	code := worst(hosts)
	var bad []*hostRun
	for _, h := range hosts {
		if h.code != 0 {
			bad = append(bad, h)
		}
	}
	if len(bad) == 0 {
		return 0
	}
	fmt.Fprintf(a.stderr, "\n%d of %d host(s) exited non-zero (exit %d, the worst):\n", len(bad), len(hosts), code)
	for _, h := range bad {
		why := h.why
		if why == "" {
			why = "see its output above"
		}
		fmt.Fprintf(a.stderr, "  %s: exit %d: %s\n", escape.Line(h.label), h.code, escape.Line(why))
	}
	return code
}

// worst is the worst of the hosts' exit codes: 1 (something failed or
// couldn't be read) outranks 2 (refused, pending, or an input error),
// which outranks 0; any other code outranks them all.
func worst(hosts []*hostRun) int {
	rank := func(c int) int {
		switch c {
		case 0:
			return 0
		case 2:
			return 1
		case 1:
			return 2
		}
		return 3 + c
	}
	code := 0
	for _, h := range hosts {
		if rank(h.code) > rank(code) {
			code = h.code
		}
	}
	return code
}
