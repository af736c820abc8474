package deploy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/user"
	"slices"
	"strings"
	"time"

	"github.com/zeebo/blake3"

	"github.com/zap-go/zap/internal/escape"
	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/lock"
	"github.com/zap-go/zap/internal/mask"
	"github.com/zap-go/zap/internal/resolve"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/canon"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/deployplan"
	"github.com/zap-go/zap/pkg/observation"
)

// Defaults of a deploy block's optional fields.
const (
	DefaultReleases   = 5
	DefaultHealthPath = "/health"
	DefaultAttempts   = 30
	DefaultIntervalMS = 2000
)

// readLimit bounds the plan's read of the target.
const readLimit = 60 * time.Second

// Options are the plan-changing flags, where the checkout is, and the
// config's zap.lock ("" for none: no pin is read).
type Options struct {
	Dir   string
	Flags deployplan.Flags
	Lock  string
}

// UnbindableError is a plan that names a host, user or health domain
// through a masked reference: it is shown, never hashed.
type UnbindableError struct{ Ref string }

func (e *UnbindableError) Error() string {
	return fmt.Sprintf("the reference %s is a secret, so the plan can't name its machine: no review can bind it", e.Ref)
}

// InputError is a deploy block the plan can't take as the environment
// resolves it: bad input, which no retry mends.
type InputError struct{ Field, Msg string }

func (e *InputError) Error() string { return e.Field + ": " + e.Msg }

// checkDomain holds the health domain, as its references resolve, to the
// rule a domain written in the config meets (declaration.IsHealthDomain),
// so no value can re-point the gate with a path, a query, a fragment, a
// user or anything but a host and a port. A reference unset or empty is no error: the plan records it
// empty, has no hash, and says so (deployplan.Plan.Unset).
func checkDomain(d *declaration.Declaration, env resolve.Env, domain string) error {
	refs := d.Deploy.Health.Domain.Refs()
	secret := false
	for _, n := range refs {
		v, _ := env(n)
		if v == "" {
			return nil
		}
		secret = secret || resolve.Secret(d, n, v)
	}
	if declaration.IsHealthDomain(domain) {
		return nil
	}
	const rule = "a health domain is a host name (letters, digits, dots and dashes), optionally :PORT (1 to 65535), with no path, query, fragment, user or space"
	names := strings.Join(refs, ", ")
	if secret {
		return &InputError{Field: "deploy.health.domain", Msg: fmt.Sprintf("the reference %s resolves to something that is not a host name (a secret's value, not shown): %s", names, rule)}
	}
	return &InputError{Field: "deploy.health.domain", Msg: fmt.Sprintf("the reference %s resolves to %q, which is not a host name: %s", names, escape.Line(domain), rule)}
}

// Made is a plan with what its reading found beside it.
type Made struct {
	Plan *deployplan.Plan
	// Warnings are shown with the plan.
	Warnings []string
	// Unbindable names a masked reference the host, user or health domain
	// resolves through ("" for none): the plan then has no hash.
	Unbindable string
	// Scripts has Text print Zap's own constant scripts whole (the release
	// script's body, the install, the rollback and the gate), where it
	// names each by its digest.
	Scripts bool
}

// Connection is a plan's target as Connect resolved and reached it.
type Connection struct {
	// Host, Port and Identity are the target as the plan records it: the
	// host resolved, the declared port and identity file.
	Host     string
	Port     int
	Identity string
	// Exec is the target as the engine's host (execute.Host; over SSH,
	// internal/sshhost's): the plan's reads run on it as operations.
	Exec  execute.Host
	Close func() error
}

// Connect resolves the target t with text (the declaration's references
// resolved), as its bootstrap_user with bootstrap, and connects to it. A
// target that resolves to nothing it can connect to is bad input.
type Connect func(ctx context.Context, t *declaration.Target, text func(declaration.Text) string, bootstrap bool) (*Connection, error)

// Make reads the checkout and the target of d into a deploy plan. env
// resolves references. connect reaches the target.
func Make(ctx context.Context, d *declaration.Declaration, env resolve.Env, o Options, connect Connect) (*Made, error) {
	dep := d.Deploy
	if dep == nil {
		return nil, errors.New("the config declares no deploy block (zap.deploy)")
	}
	if d.Target.Local {
		return nil, errors.New("target: zap deploy ships to a remote host; the config's target is the local machine")
	}
	src, err := ReadSource(ctx, o.Dir)
	if err != nil {
		return nil, err
	}
	if err := ArtifactsInside(ctx, o.Dir, dep.Artifacts); err != nil {
		return nil, err
	}
	res := resolve.Resolve(d, env)
	m := &Made{}
	refs, domain, masked := deployRefs(d, env)
	if masked != "" {
		m.Unbindable = masked
	}
	for _, r := range res.References {
		if r.Secret && targetUses(&d.Target, r.Name, o.Flags.Bootstrap) {
			m.Unbindable = r.Name
		}
	}
	if dep.Health != nil {
		if err := checkDomain(d, env, domain); err != nil {
			return nil, err
		}
	}
	t, err := connect(ctx, &d.Target, res.Text, o.Flags.Bootstrap)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	pre, err := preflight(d, o)
	if err != nil {
		return nil, err
	}
	who, live, err := readTarget(ctx, t.Exec, dep.Path)
	if err != nil {
		return nil, err
	}
	if err := checkNeeds(ctx, t.Exec, who, d.Target.ServiceManager, dep.Service); err != nil {
		return nil, err
	}
	p := &deployplan.Plan{
		Format:     deployplan.Format,
		Target:     deployplan.Target{Declared: declared(&d.Target, o.Flags.Bootstrap), Host: t.Host, Port: t.Port, Identity: t.Identity, User: who},
		Operator:   operator(),
		Source:     src,
		Flags:      o.Flags,
		Live:       live,
		Preflight:  pre,
		Path:       dep.Path,
		References: refs,
		Masked:     slices.Sorted(maps.Keys(secretValues(d, env))),
	}
	p.Steps = steps(d, p)
	if dep.Health != nil && domain != "" && len(p.Unset()) == 0 && m.Unbindable == "" {
		if w := reach(ctx, domain, live.State == deployplan.LiveRelease); w != "" {
			m.Warnings = append(m.Warnings, w)
		}
	}
	if m.Unbindable != "" {
		maskPlan(p, Masker(d, env))
	} else if Bindable(p) {
		if p.Hash, err = deployplan.Hash(p, Hashed()...); err != nil {
			return nil, err
		}
	}
	return m, finish(m, p)
}

// Masker masks the value of every secret d references, the deploy
// block's included, resolved from env: what zap-deploy keeps out of the
// plan it writes and out of its errors.
func Masker(d *declaration.Declaration, env resolve.Env) *mask.Masker {
	return mask.New(secretValues(d, env))
}

// secretValues are the values of the secrets d references, the deploy
// block's included, by name, as env resolves them; unset ones left out.
func secretValues(d *declaration.Declaration, env resolve.Env) map[string]string {
	values := map[string]string{}
	res := resolve.Resolve(d, env)
	for _, r := range res.References {
		if v, _ := res.Lookup(r.Name); r.Secret && v != "" {
			values[r.Name] = v
		}
	}
	if d.Deploy != nil {
		for _, name := range d.Deploy.Refs() {
			if v, _ := env(name); v != "" && resolve.Secret(d, name, v) {
				values[name] = v
			}
		}
	}
	return values
}

// RunMasker masks the secrets the plan names (Masked) as env resolves
// them: what zap-deploy run masks a step's output with as it keeps it.
func RunMasker(p *deployplan.Plan, env func(string) (string, bool)) *mask.Masker {
	values := map[string]string{}
	for _, name := range p.Masked {
		if v, _ := env(name); v != "" {
			values[name] = v
		}
	}
	return mask.New(values)
}

// maskPlan masks the secrets of the target's resolution out of an
// unbindable plan, which no run takes: a host or connecting user behind a
// secret reads as [MASKED:NAME] wherever the plan would name it (the
// target, the archive's name, the release script), so the document
// zap-deploy plan writes holds no secret value.
func maskPlan(p *deployplan.Plan, m *mask.Masker) {
	for _, s := range []*string{&p.Target.Host, &p.Target.User, &p.Target.Identity, &p.Operator, &p.Path,
		&p.Steps.Build, &p.Steps.Upload.Name, &p.Steps.Script, &p.Steps.Restart} {
		*s = m.String(*s)
	}
	for i := range p.Steps.Artifacts {
		p.Steps.Artifacts[i] = m.String(p.Steps.Artifacts[i])
	}
}

func finish(m *Made, p *deployplan.Plan) error {
	m.Plan = p
	return p.Validate()
}

// Bindable says whether a review can bind p: not a dirty tree without
// --force, not a release already live without --force, no reference of
// the deploy block unset (a wetrun refuses that).
func Bindable(p *deployplan.Plan) bool {
	return (p.Source.Tree == deployplan.Clean || p.Flags.Force) && !AlreadyLive(p) && len(p.Unset()) == 0
}

// AlreadyLive says whether the live release is the plan's version and the
// plan doesn't force a redeploy: "server already at this version". A dirty
// tree without --force is never already live.
func AlreadyLive(p *deployplan.Plan) bool {
	return !p.Flags.Force && p.Source.Tree == deployplan.Clean &&
		p.Live.State == deployplan.LiveRelease && p.Live.Release == p.Source.Version
}

// steps says each step of the deploy.
func steps(d *declaration.Declaration, p *deployplan.Plan) deployplan.Steps {
	dep := d.Deploy
	s := deployplan.Steps{Artifacts: append([]string{}, dep.Artifacts...)}
	if !p.Flags.SkipBuild {
		s.Build = dep.Build
	}
	s.Upload.Name = ".zap-deploy-" + p.Target.User + "-" + p.Source.Version + ".tar.gz"
	keep := DefaultReleases
	if dep.Releases != nil {
		keep = *dep.Releases
	}
	s.Script = ReleaseScript(dep.Path, p.Target.User, p.Source.Version, p.Live, keep, dep.Shared, dep.Prepare, p.Operator)
	if dep.Service != "" {
		switch d.Target.ServiceManager {
		case vocab.ManagerOpenRC:
			s.Restart = "rc-service " + vocab.Quote(dep.Service) + " restart"
		default:
			s.Restart = "systemctl daemon-reload && systemctl restart " + vocab.Quote(dep.Service)
		}
	}
	if h := dep.Health; h != nil {
		path := h.Path
		if path == "" {
			path = DefaultHealthPath
		}
		c := deployplan.Check{URL: checkURL(h.Domain, path), Attempts: DefaultAttempts, IntervalMS: DefaultIntervalMS}
		if h.Attempts != nil {
			c.Attempts = *h.Attempts
		}
		if h.IntervalMS != nil {
			c.IntervalMS = *h.IntervalMS
		}
		s.Health = &c
		if path != "/ready" {
			r := c
			r.URL = checkURL(h.Domain, "/ready")
			s.Ready = &r
		}
	}
	return s
}

// checkURL is https://<domain><path> with the domain's references left as
// references: the plan records their values beside it (or that one is a
// secret), and zap-deploy run resolves them when it polls.
func checkURL(domain declaration.Text, path string) declaration.Text {
	parts := append([]declaration.Part{{Lit: "https://"}}, domain.Parts()...)
	return declaration.Concat(append(parts, declaration.Part{Lit: path})...)
}

// readTarget reads who the deploy connects as and what current names.
func readTarget(ctx context.Context, h execute.Host, path string) (who string, live deployplan.Live, err error) {
	out, err := op(ctx, h, opRead, readScript, readLimit, path)
	var ee *execute.ExitError
	var te *execute.TimeoutError
	switch {
	case errors.As(err, &te):
		return "", live, fmt.Errorf("reading %s on the target took longer than %v", path, readLimit)
	case errors.As(err, &ee):
		return "", live, fmt.Errorf("reading %s on the target exited %d: %s", path, ee.Status, strings.TrimSpace(lastLines(ee.Output, 3)))
	case err != nil:
		return "", live, err
	}
	var info deployInfo
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if doc, ok := strings.CutPrefix(line, "info "); ok {
			// Unreadable, it is one no gate was recorded in: a release
			// deployed before Zap recorded gates counts as passed.
			_ = json.Unmarshal([]byte(doc), &info)
			continue
		}
		switch {
		case len(f) == 2 && f[0] == "user":
			who = f[1]
		case len(f) == 2 && f[0] == "current" && f[1] == "none":
			live.State = deployplan.LiveNone
		case len(f) == 2 && f[0] == "current" && f[1] == "other":
			return "", live, fmt.Errorf("%s/current is not a symbolic link, so it names no release to roll back to: point it at the live release by hand, or remove it to deploy as onto a fresh host", path)
		case len(f) == 4 && f[0] == "current" && f[1] == "link":
			if !deployplan.IsRelease(f[2]) {
				return "", live, fmt.Errorf("%s/current names %q, which is no release's name: point it at the live release by hand, or remove it to deploy as onto a fresh host", path, f[2])
			}
			live = deployplan.Live{State: deployplan.LiveRelease, Release: f[2]}
			if f[3] == "missing" {
				live.State = deployplan.LiveMissing
			}
		}
	}
	if who == "" || live.State == "" {
		return "", live, fmt.Errorf("reading %s on the target: an answer the deploy doesn't read: %q", path, out)
	}
	if live.State == deployplan.LiveRelease && info.Version == live.Release && (info.Gate == GatePending || info.Gate == GateFailed) {
		live.State = deployplan.LiveUnproven
	}
	return who, live, nil
}

// checkNeeds checks that the target has the tools Zap's deploy scripts
// use and, when the deploy restarts service, that user can run the restart
// through sudo without a password and that the declared service manager
// runs the host and knows the service: the plan says what is missing
// before a wetrun would fail on it halfway (needs.sh).
func checkNeeds(ctx context.Context, h execute.Host, user, manager, service string) error {
	sudo := "no"
	if service != "" {
		sudo = "yes"
	}
	out, err := op(ctx, h, opNeeds, needsScript, readLimit, sudo, manager, service)
	var ee *execute.ExitError
	var te *execute.TimeoutError
	switch {
	case errors.As(err, &ee):
		return fmt.Errorf("checking what the deploy needs on the target failed: %s", strings.TrimSpace(lastLines(ee.Output, 2)))
	case errors.As(err, &te):
		return fmt.Errorf("checking what the deploy needs on the target took longer than %v", readLimit)
	case err != nil:
		return err
	}
	return needsError(out, user, manager, service)
}

// needsError is what needs.sh's answer says the target lacks, nil for
// nothing.
func needsError(answer, user, manager, service string) error {
	var missing []string
	said := map[string]bool{}
	for _, l := range strings.Split(answer, "\n") {
		if t, ok := strings.CutPrefix(l, "missing "); ok {
			missing = append(missing, t)
		}
		said[l] = true
	}
	nosudo := said["nosudo"]
	switch {
	case len(missing) > 0:
		return exit.InWorld(fmt.Errorf("the target lacks %s, which Zap's deploy scripts use (on %s's PATH)", strings.Join(missing, ", "), user),
			"install them on the target: flock is in util-linux; sha512sum, cat, stat, mktemp, readlink and head in coreutils; then run zap deploy again")
	case nosudo:
		return exit.InWorld(fmt.Errorf("the deploy restarts deploy.service with sudo -n, and %s can't run sudo without a password on the target", user),
			"grant "+user+" passwordless sudo (NOPASSWD in /etc/sudoers.d/), or leave deploy.service out and restart the app another way")
	case said["nomanager"]:
		return exit.InWorld(fmt.Errorf("the deploy restarts deploy.service through %s, the target's declared service_manager, and %s doesn't run that host", manager, manager),
			"declare the service manager the host runs in zap.target (systemd or openrc), or leave deploy.service out")
	case said["nounit"]:
		return exit.InWorld(fmt.Errorf("the deploy restarts deploy.service %q, and %s on the target knows no such service", service, manager),
			"declare its unit or init script in the config and converge with zap apply --wetrun before deploying")
	}
	return nil
}

// A release's gate, as deploy_info.json records it for the release
// current names: pending from the swap until the run records the verdict
// of its restart and checks (gate.sh).
const (
	GatePending = "pending"
	GatePassed  = "passed"
	GateFailed  = "failed"
)

// deployInfo is what the plan reads of deploy_info.json.
type deployInfo struct {
	Version string `json:"version"`
	Gate    string `json:"gate"`
}

// deployRefs resolves the references of the deploy block: the plan's
// references list, the health domain, and the name of a secret among them.
func deployRefs(d *declaration.Declaration, env resolve.Env) (refs []observation.Reference, domain, masked string) {
	values := map[string]string{}
	for _, name := range d.Deploy.Refs() {
		v, _ := env(name)
		values[name] = v
		r := observation.Reference{Name: name, Secret: resolve.Secret(d, name, v)}
		if r.Secret {
			masked = name
		} else {
			r.Value = v
		}
		refs = append(refs, r)
	}
	if d.Deploy.Health != nil {
		domain, _ = d.Deploy.Health.Domain.Resolve(func(n string) (string, bool) { return values[n], true })
	}
	return refs, domain, masked
}

// targetUses says whether the target's host or connecting user reads the
// variable name.
func targetUses(t *declaration.Target, name string, bootstrap bool) bool {
	user := t.User
	if bootstrap {
		user = t.BootstrapUser
	}
	for _, v := range []*declaration.Text{t.Host, user} {
		if v == nil {
			continue
		}
		for _, r := range v.Refs() {
			if r == name {
				return true
			}
		}
	}
	return false
}

// declared is the target's host as the config writes it.
func declared(t *declaration.Target, _ bool) string {
	if t.Host == nil {
		return ""
	}
	return t.Host.String()
}

// operator is user@host of the machine zap runs on.
func operator() string {
	name := os.Getenv("USER")
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	host, _ := os.Hostname()
	return name + "@" + host
}

// preflight is the drift preflight's state: skipped, nothing declared, or
// how many resources it checks and a digest of their declarations as
// written and of the pins zap.lock (o.Lock) holds for them.
func preflight(d *declaration.Declaration, o Options) (deployplan.Preflight, error) {
	switch {
	case o.Flags.SkipPreflight:
		return deployplan.Preflight{State: deployplan.PreflightSkipped}, nil
	case len(d.Resources) == 0:
		return deployplan.Preflight{State: deployplan.PreflightNone}, nil
	}
	var l *lock.Lock
	if o.Lock != "" {
		var err error
		if l, err = lock.Read(o.Lock); err != nil {
			return deployplan.Preflight{}, err
		}
	}
	h := blake3.New()
	h.WriteString("zap deploy preflight v1\n")
	for i := range d.Resources {
		b, err := canon.Marshal(&d.Resources[i])
		if err != nil {
			return deployplan.Preflight{}, err
		}
		fmt.Fprintf(h, "%d:%s\n", len(b), b)
		if e := l.Entry(d.Resources[i].ID); e != nil {
			fmt.Fprintf(h, "pin %s %s\n", e.Blake3, e.ConfigHash)
		}
	}
	return deployplan.Preflight{State: deployplan.PreflightChecks, Count: len(d.Resources), Digest: fmt.Sprintf("%x", h.Sum(nil))}, nil
}
