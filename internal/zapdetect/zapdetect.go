// Package zapdetect is zap-detect, the detection stage: it reads the target
// a declaration describes and writes what it found, one verdict per
// resource.
//
// Usage:
//
//	zap-detect [--bootstrap] [--diff] [--lock PATH] [--pin ID=BLAKE3]... [DECLARATION]
//
// A resource that fetches is compared against its pin: the vendored blake3,
// or a tracked one from the zap.lock --lock names while its entry is current
// (internal/lockhash), or a --pin the caller minted. A tracked pin that
// isn't current, and any with no --lock, holds its resource with the reason
// and what to run. A lock that doesn't read is bad input (exit 2).
//
// zap-detect reads a declaration (from the file DECLARATION, or stdin when it
// is absent), validates it, resolves its references from its own
// environment (an unset or empty one is listed as unresolved and reads as
// the empty string) and ~ and $HOME against $HOME, reads the target, and
// writes the observations (pkg/observation) to stdout as canonical JSON and
// a newline: the declaration, the context (target, user, home), the
// references, the batches it ran (lane and query count) and each resource's
// verdict, converged, drifted (with what differs), absent or undetermined
// (with why).
//
// Each kind declares its reads as typed queries and a pure function of the
// answers gives its verdict (internal/detect); the local machine answers
// them natively (internal/localhost). A script's check runs under a 30
// second limit.
//
// A remote target is read over one SSH connection (internal/sshhost), one
// batched shell script per lane (internal/batch), made the way the
// operator's ssh would make it. Its host and user resolve from the
// environment; ~ and $HOME in a path resolve against the declared home, and
// a path under ~ with no home declared holds. The context names the
// resolved host and the declared user ("" when ssh chooses). With
// --bootstrap it connects as the declared bootstrap_user instead, and the
// context names that user (a target with no bootstrap_user is bad input).
//
// A config that declares a trigger (a file's triggers, a service's
// restart_on or reload_on) also reads the pending-trigger markers in
// /var/lib/zap/pending as root, in the same pass: the observations list
// them (pending), and a marker for a service the config doesn't manage is a
// warning (warnings). A marker directory that can't be read fails the pass
// (exit 1): it must not read as owing nothing.
//
// With --diff, each file's detector also reads the text a diff of its
// content shows (at most 256 KiB of a regular file of its own, never
// through a link), in the same batch, and a file whose content would
// change carries the diff, masked, in its observation's diff field
// (internal/textdiff). The verdicts are made as without it.
//
// A file read as a regular file is recorded with a fingerprint of its
// content (observation.Resource.Fingerprint): its SHA-512 keyed with the
// operator's fingerprint key in $ZAP_HOME or ~/.zap (stage.FingerprintKey),
// made on first use, so that zap-exec can tell the content moved since the
// plan and no reader of the plan can test a guess at it.
//
// Exit codes: 0 it wrote the observations (undetermined verdicts included:
// verdicts are data); 2 bad input (an unknown flag, a declaration that
// doesn't decode or validate, with the field named, a remote host or user
// that resolves to nothing, a HOME that is unset or not absolute on a local
// target); 1 it couldn't read its input, learn who it runs as, connect to
// the target ("cannot connect to HOST: ssh's reason"), read the
// pending-trigger markers, read or make the fingerprint key (or trust it:
// a link, another owner, a mode other than 600), or write its output.
package zapdetect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"reflect"
	"strings"
	"sync"

	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/kinds"
	"github.com/zap-go/zap/internal/stage"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/localhost"
	"github.com/zap-go/zap/internal/resolve"
	"github.com/zap-go/zap/internal/sshhost"
	"github.com/zap-go/zap/internal/strict"
	"github.com/zap-go/zap/internal/textdiff"
	"github.com/zap-go/zap/pkg/canon"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

const usage = `usage: zap-detect [--bootstrap] [--diff] [--lock PATH] [--pin ID=BLAKE3]... [DECLARATION]

Reads a declaration (zap-eval's output) from the file DECLARATION, or from
stdin when it is absent, reads the target it describes, and writes the
observations, one verdict per resource, to stdout.

  zap-eval zap.ts | zap-detect | zap-plan

References resolve from zap-detect's environment; ~ and $HOME in a path
resolve against $HOME.

  --bootstrap  connect to a remote target as its bootstrap_user rather than
               its user (the first bring-up of a host); the observations
               name the user connected as
  --diff       also read the text of each file whose content would change
               (at most 256 KiB, in the same batch) and write its diff,
               masked, in its observation's diff field
  --lock PATH  take tracked pins (fetched content with no blake3 in the
               config) from the zap.lock at PATH: a current entry is the
               pin compared against; a missing, stale or unverifiable one
               holds its resource, as every tracked pin does without --lock
  --pin ID=BLAKE3
               compare the tracked resource ID against BLAKE3, a pin its
               caller minted and hasn't written (a dry zap apply);
               repeatable
  --version    print the version and exit

Environment:
  HOME           what ~ and $HOME mean in a local target's paths
  ZAP_HOME       the state directory (default $HOME/.zap): its content cache
                 and fingerprint key
  SSH_AUTH_SOCK  the ssh agent whose keys a remote target is offered (with
                 the IdentityFile keys of your ssh config)
  PATH           where ssh is found: ssh -G reads your ssh config for the host
  SSL_CERT_FILE, SSL_CERT_DIR
                 the CA roots a tracked https source is fetched with
  ZAP_ENV_FD     set by zap, not by you: the descriptor holding --env-file
                 values too long for an environment
  and every variable the declaration references

Examples:
  zap-eval | zap-detect > obs.json      # read ./zap.ts's target
  zap-detect --bootstrap decl.json      # read a new host as its bootstrap_user
  zap-detect --lock zap.lock decl.json  # compare tracked content with its pins

Exit status: 0 the observations were written (undetermined verdicts are
listed in them), 2 bad input, 1 the input couldn't be read or the output
written.
`

// Main runs zap-detect with args and returns its exit code.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return stage.Finish("zap-detect", usage, run(ctx, args, stdin, stdout, stderr), stdout, stderr)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := stage.NewFlagSet("zap-detect")
	bootstrap := fs.Bool("bootstrap", false, "connect as the target's bootstrap_user")
	diff := fs.Bool("diff", false, "write the diff of each file whose content would change")
	var pf pinFlags
	fs.StringVar(&pf.lock, "lock", "", "take tracked pins from the zap.lock at `PATH`")
	fs.Func("pin", "a tracked pin `ID=BLAKE3` minted for a resource the lock has no entry for", pf.pinFlag)
	passed, data, err := stage.InputEnv(fs, args, stdin, "declaration")
	if err != nil {
		return err
	}
	// A remote target's connection is made while the declaration is
	// decoded and validated and its reads are built; a declaration that
	// isn't valid is still refused as such, and the connection dropped
	// unused.
	notice := sshhost.Warn(stderr)
	early, et := earlyDial(ctx, data, *bootstrap, notice)
	d, err := declaration.Read(data)
	if err != nil {
		early.close()
		return badDeclaration(err)
	}
	res := resolve.Resolve(d, passed.Lookup)
	if err := res.CheckUTF8(); err != nil {
		early.close()
		return exit.BadInput(err, resolve.UTF8Hint)
	}
	conn := early
	if conn == nil || !reflect.DeepEqual(*et, d.Target) {
		early.close()
		conn = startDial(ctx, d, res, *bootstrap, notice)
	}
	defer conn.close()
	if err := d.Validate(); err != nil {
		return badDeclaration(err)
	}
	p, err := newPins(d, res, pf)
	if err != nil {
		return err
	}
	// The declaration's canonical bytes, most of the observations', are
	// made while the target is read.
	decl := make(chan []byte, 1)
	go func() {
		b, err := canon.Marshal(d)
		if err != nil {
			b = nil
		}
		decl <- b
	}()
	o, err := observe(ctx, d, res, conn, p, *diff)
	if err != nil {
		return err
	}
	return write(stdout, o, <-decl)
}

// observe reads the target of d, locally or through conn, and makes the
// observations.
func observe(ctx context.Context, d *declaration.Declaration, res *resolve.Resolution, conn *dialing, p *pins, diff bool) (*observation.Observations, error) {
	env := detectEnv(d, res, p)
	if diff {
		key, err := stage.FingerprintKey()
		if err != nil {
			return nil, err
		}
		env.Diff, env.Cached = true, cached
		env.Fingerprint = func(sum string) string { return detect.Fingerprint(key, sum) }
	}
	var host detect.Host
	var ctxt observation.Context
	if d.Target.Local {
		var err error
		if host, ctxt, err = localTarget(); err != nil {
			return nil, err
		}
		env.Home = ctxt.Home
	} else {
		env.Home = d.Target.Home
	}
	detectors := build(d, env)
	if conn != nil {
		// The lanes' batches are built while the connection is still
		// being made; each runs once it is.
		host = sshhost.Connecting{Wait: func() (*sshhost.Client, error) {
			r := conn.wait()
			return r.client, r.err
		}}
	}
	batches, results, ledger, err := pass(ctx, d, host, detectors)
	if conn != nil {
		// A connection that couldn't be made fails the pass as such,
		// whatever the lanes' reads said of it.
		r := conn.wait()
		if r.err != nil {
			return nil, r.err
		}
		// A host or connecting user that goes through a secret reference
		// is written masked: no document a stage writes holds a secret's
		// value, and no plan of such a target binds a wetrun anyway.
		m := res.Masker()
		ctxt = observation.Context{Target: m.String(r.target.Host), User: m.String(r.target.User), Home: d.Target.Home, Bootstrap: conn.bootstrap}
	}
	if err != nil {
		return nil, err
	}
	o := &observation.Observations{
		Format:      observation.Format,
		Declaration: *d,
		Context:     ctxt,
		References:  res.References,
		Unresolved:  res.UnresolvedCompared,
		Batches:     batches,
		Resources:   make([]observation.Resource, len(results)),
	}
	if err := resources(o, results); err != nil {
		return nil, err
	}
	if ledger != nil {
		o.Pending, o.Warnings = ledger.Markers, ledger.Warnings(d)
	}
	return o, nil
}

// detectEnv is what the reads of d are built against, but for the home
// (which depends on the target): its references' values and which of them
// are secrets, and the target's package and service managers.
func detectEnv(d *declaration.Declaration, res *resolve.Resolution, p *pins) detect.Env {
	secret := map[string]bool{}
	for _, r := range res.References {
		secret[r.Name] = r.Secret
	}
	return detect.Env{
		Value:  func(name string) string { v, _ := res.Lookup(name); return v },
		Secret: func(name string) bool { return secret[name] },
		Mask:   res.Masker(),

		PackageManager: d.Target.PackageManager,
		ServiceManager: d.Target.ServiceManager,
		Pin:            p.pin,
		Remember:       remember,
	}
}

// localTarget is the local machine as a detect.Host, and the context it is
// read in: the account zap-detect runs as and its HOME.
func localTarget() (detect.Host, observation.Context, error) {
	home, err := localHome()
	if err != nil {
		return nil, observation.Context{}, err
	}
	me, err := user.Current()
	if err != nil {
		return nil, observation.Context{}, exit.InWorld(fmt.Errorf("find the account zap-detect runs as: %w", err))
	}
	return &localhost.Host{Env: os.Environ()}, observation.Context{Target: "local", User: me.Username, Home: home}, nil
}

// build makes each resource's detector.
func build(d *declaration.Declaration, env detect.Env) []detect.Detector {
	detectors := make([]detect.Detector, len(d.Resources))
	for i := range d.Resources {
		detectors[i] = kinds.Of(&d.Resources[i]).Detect(&d.Resources[i], env)
	}
	return detectors
}

// pass runs the detectors through host in one pass. A config that declares
// a trigger reads the pending-trigger markers as root in the same pass
// (ledger, nil otherwise); a ledger that can't be read fails it.
func pass(ctx context.Context, d *declaration.Declaration, host detect.Host, detectors []detect.Detector) ([]observation.Batch, []detect.Result, *detect.Ledger, error) {
	var ledger *detect.Ledger
	if detect.DeclaresTrigger(d) {
		ledger = &detect.Ledger{}
		detectors = append(detectors, ledger)
	}
	batches, results := detect.Pass(ctx, host, detectors)
	if ledger != nil {
		if r := results[len(results)-1]; r.Verdict == observation.Undetermined {
			return nil, nil, nil, exit.InWorld(fmt.Errorf("cannot read the pending-trigger markers in %s: %s", detect.PendingDir, r.Reason),
				"a marker there is a restart or reload an earlier run owes; the plan can't tell what is owed without them",
				"check that root can read "+detect.PendingDir+" (sudo -n must work for the connecting user), then run again")
		}
		results = results[:len(results)-1]
	}
	return batches, results, ledger, nil
}

// resources fills o's resources from the results, one for one.
func resources(o *observation.Observations, results []detect.Result) error {
	var key []byte
	for i, r := range results {
		o.Resources[i] = observation.Resource{ID: o.Declaration.Resources[i].ID, Verdict: r.Verdict, Reason: r.Reason, Drift: r.Drift, Pin: r.Pin, Diff: contentDiff(r)}
		if r.Seen == "" || r.Verdict == observation.Undetermined {
			continue
		}
		// What a read saw beyond its drift is published only keyed,
		// with the key read (or made) once, when first needed.
		if key == nil {
			var err error
			if key, err = stage.FingerprintKey(); err != nil {
				return err
			}
		}
		o.Resources[i].Fingerprint = detect.Fingerprint(key, r.Seen)
	}
	return nil
}

// contentDiff is r's content diff (internal/textdiff), or the line that
// stands for it; "" for none.
func contentDiff(r detect.Result) string {
	d := r.DiffSides
	if d == nil {
		return r.Diff
	}
	return textdiff.Show(textdiff.Input{From: d.From, To: d.To, Current: d.Current, Absent: d.Absent, Size: d.Size,
		CurrentSHA512: d.CurrentSHA512, Desired: d.Desired, DesiredSize: d.DesiredSize, DesiredSHA512: d.DesiredSHA512,
		Mask: d.Mask, Secrets: d.Secrets, Fingerprint: d.Fingerprint})
}

// write writes the observations to stdout, checked against a document's
// limits; decl is their declaration's canonical encoding (nil: none made).
func write(stdout io.Writer, o *observation.Observations, decl []byte) error {
	out, err := encode(o, decl)
	if err != nil {
		return fmt.Errorf("encode the observations: %w", err)
	}
	if err := stage.CheckOutput(out, "observations", "zap-plan"); err != nil {
		return err
	}
	if _, err := stdout.Write(append(out, '\n')); err != nil {
		return exit.InWorld(fmt.Errorf("write the observations: %w", err))
	}
	return nil
}

// encode is o.Encode, with decl, the canonical bytes of o's declaration
// made beforehand, put where an empty declaration's are: a canonical
// encoding is the same wherever the value sits, and the first
// "declaration": key of the document is the top level's (only the format,
// batches and context come before it, and none holds such a key; inside a
// string a quote is escaped). With no decl, or no such key, it is o.Encode.
func encode(o *observation.Observations, decl []byte) ([]byte, error) {
	if decl == nil {
		return o.Encode()
	}
	rest := *o
	rest.Declaration = declaration.Declaration{}
	out, err := rest.Encode()
	if err != nil {
		return nil, err
	}
	empty, err := canon.Marshal(rest.Declaration)
	if err != nil {
		return o.Encode()
	}
	key := append([]byte(`"declaration":`), empty...)
	i := bytes.Index(out, key)
	if i < 0 {
		return o.Encode()
	}
	at := i + len(`"declaration":`)
	spliced := make([]byte, 0, len(out)-len(empty)+len(decl))
	spliced = append(spliced, out[:at]...)
	spliced = append(spliced, decl...)
	return append(spliced, out[i+len(key):]...), nil
}

// badDeclaration is the error for a declaration that doesn't read or
// isn't valid.
func badDeclaration(err error) error {
	var hints []string
	if errors.Is(err, declaration.ErrFormat) {
		hints = append(hints, "make the declaration with the zap-eval of this zap")
	}
	return exit.BadInput(fmt.Errorf("declaration: %w", err), hints...)
}

// dialing is a remote target's connection being made.
type dialing struct {
	done   chan dialResult
	cancel context.CancelFunc
	once   sync.Once
	taken  *dialResult
	// bootstrap says it connects as the bootstrap_user.
	bootstrap bool
}

// startDial starts connecting to d's target when it is remote; nil when it
// is local.
func startDial(ctx context.Context, d *declaration.Declaration, res *resolve.Resolution, bootstrap bool, notice func(string)) *dialing {
	if d.Target.Local {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	c := &dialing{done: make(chan dialResult, 1), cancel: cancel, bootstrap: bootstrap}
	go func() { c.done <- dial(ctx, &d.Target, res.Text, bootstrap, notice) }()
	return c
}

// earlyDial starts connecting to the target the declaration's bytes name
// before the declaration is decoded, when it is a remote host named with no
// reference at all (nothing to resolve first): its member alone is decoded.
// run takes the connection only when the target the declaration decodes to
// is the same one, and otherwise drops it unused. nil when it isn't such a
// target.
func earlyDial(ctx context.Context, data []byte, bootstrap bool, notice func(string)) (*dialing, *declaration.Target) {
	m, ok := canon.Members(data)
	if !ok {
		return nil, nil
	}
	var t declaration.Target
	if raw, ok := m["target"]; !ok || strict.Decode(raw, &t) != nil || t.Local || t.Host == nil || len(t.Refs()) > 0 {
		return nil, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	c := &dialing{done: make(chan dialResult, 1), cancel: cancel, bootstrap: bootstrap}
	plain := func(x declaration.Text) string { v, _ := x.Plain(); return v }
	go func() { c.done <- dial(ctx, &t, plain, bootstrap, notice) }()
	return c, &t
}

// wait is the connection, once made, or why there is none; any number of
// callers may wait, at once.
func (c *dialing) wait() dialResult {
	c.once.Do(func() {
		r := <-c.done
		c.taken = &r
	})
	return *c.taken
}

// close closes the connection, stopping it first when nothing waited for
// it.
func (c *dialing) close() {
	if c == nil {
		return
	}
	r := c.taken
	if r == nil {
		c.cancel()
		got := c.wait()
		r = &got
	}
	if r.client != nil {
		r.client.Close()
	}
	c.cancel()
}

// dialResult is a remote target's connection, or why there is none.
type dialResult struct {
	target sshhost.Target
	client *sshhost.Client
	err    error
}

// dial resolves the remote target t, its references read by text, and
// connects to it: a target that resolves to no host or account, or an ssh
// config naming a file Zap doesn't read, is bad input, a host that can't be
// reached the world's. notice is told of a host key recorded.
func dial(ctx context.Context, t *declaration.Target, text func(declaration.Text) string, bootstrap bool, notice func(string)) dialResult {
	target, err := sshhost.ResolveTarget(t, text, bootstrap)
	if err != nil {
		var te *sshhost.TargetError
		if errors.As(err, &te) && te.Hint != "" {
			return dialResult{err: exit.BadInput(err, te.Hint)}
		}
		return dialResult{err: exit.BadInput(err)}
	}
	target.Notice = notice
	client, err := sshhost.Dial(ctx, target, operatorHome())
	if err != nil {
		var ce *sshhost.ConnectError
		switch {
		case errors.As(err, &ce) && errors.Is(ce, sshhost.ErrConfig):
			return dialResult{err: exit.BadInput(fmt.Errorf("cannot connect to %s: %s", target.Host, ce.Reason), ce.Hints...)}
		case errors.As(err, &ce):
			return dialResult{err: exit.InWorld(fmt.Errorf("cannot connect to %s: %s", target.Host, ce.Reason), ce.Hints...)}
		}
		return dialResult{err: exit.InWorld(fmt.Errorf("cannot connect to %s: %w", target.Host, err))}
	}
	return dialResult{target: target, client: client}
}

// localHome is the operator's HOME, which ~ and $HOME resolve against on a
// local target.
func localHome() (string, error) {
	home, ok := os.LookupEnv("HOME")
	switch {
	case !ok || home == "":
		return "", exit.BadInput(errors.New("HOME is unset or empty; ~ and $HOME in a path resolve against it"), "set HOME to your home directory")
	case !strings.HasPrefix(home, "/"):
		return "", exit.BadInput(fmt.Errorf("HOME is %q, not an absolute path; ~ and $HOME in a path resolve against it", home), "set HOME to your home directory, an absolute path")
	}
	return home, nil
}

// operatorHome is what ~ means in the operator's ssh config: the account's
// home, as ssh takes it, else $HOME.
func operatorHome() string {
	if u, err := user.Current(); err == nil && u.HomeDir != "" {
		return u.HomeDir
	}
	return os.Getenv("HOME")
}
