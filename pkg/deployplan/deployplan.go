// Package deployplan is the document zap-deploy plan writes and zap-deploy
// run executes: one deploy of an app to one host, every step spelled out,
// and its plan_hash.
//
// A deploy plan is JSON whose first field is "format":
// "zap.deploy-plan/2", in canonical form (pkg/canon). Read decodes one
// strictly: an unknown field, a field given twice, a null, a value of the
// wrong JSON type or a format this package doesn't read is an error naming
// the field's path. docs/protocol.md documents every field, and
// docs/deploy-design.md what each step does.
package deployplan

import (
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/zeebo/blake3"

	"github.com/zap-go/zap/internal/strict"
	"github.com/zap-go/zap/pkg/canon"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// Format is the format name and version this package reads and writes.
// Version 2 writes a check's URL as declaration text, its references
// unresolved (version 1 wrote the resolved URL).
const Format = "zap.deploy-plan/2"

// Plan is one deploy, as the dry run shows it and the wetrun runs it.
type Plan struct {
	Format string `json:"format"`
	// Target is where the release goes: the host as declared and as it
	// resolves, and the account the deploy connects as.
	Target Target `json:"target"`
	// Operator is who deploys: user@host of the operator's machine,
	// recorded in deploy_info.json.
	Operator string `json:"operator"`
	// Source is the release: the commit, its version and the tree state.
	Source Source `json:"source"`
	// Flags are the plan-changing flags the plan was made with.
	Flags Flags `json:"flags"`
	// Live is what the target's current link named when the plan read it.
	Live Live `json:"live"`
	// Preflight is the drift preflight's state.
	Preflight Preflight `json:"preflight"`
	// Path is the app's directory on the target (deploy.path).
	Path  string `json:"path"`
	Steps Steps  `json:"steps"`
	// References are the values of the references the deploy uses (the
	// health domain); a secret's value is never written.
	References []observation.Reference `json:"references,omitempty"`
	// Masked names the secrets the config references that were set when
	// the plan was made, sorted (their values are never written):
	// zap-deploy run reads each from its own environment and masks it out
	// of what a step prints before the kept output is cut.
	Masked []string `json:"masked,omitempty"`
	// Hash is plan_hash: 64 lowercase hex digits of blake3 (see Hash).
	Hash string `json:"plan_hash"`
}

// Target is the host a deploy goes to.
type Target struct {
	// Declared is the host as the config writes it (a reference as
	// ${NAME}); Host what it resolves to.
	Declared string `json:"declared"`
	Host     string `json:"host"`
	Port     int    `json:"port,omitempty"`
	// Identity is the declared private key the connection tries first.
	Identity string `json:"identity,omitempty"`
	// User is the account the deploy connects as, as the target reported
	// it (id -un).
	User string `json:"user"`
}

// Tree states.
const (
	Clean = "clean" // the tree is the commit
	Dirty = "dirty" // uncommitted changes or untracked files (or a sparse checkout)
)

// Source is the release's source: the checkout the deploy runs in.
type Source struct {
	Commit string `json:"commit"`
	// Version names the release: git rev-parse --short=12, with
	// -dirty-<id> for a dirty tree.
	Version string `json:"version"`
	Tree    string `json:"tree"`
	// DirtyID is the 8 hex digits of a dirty tree's id.
	DirtyID string `json:"dirty_id,omitempty"`
}

// Flags are the flags that change a plan.
type Flags struct {
	Force         bool `json:"force,omitempty"`
	SkipBuild     bool `json:"skip_build,omitempty"`
	SkipPreflight bool `json:"skip_preflight,omitempty"`
	Bootstrap     bool `json:"bootstrap,omitempty"`
}

// What the plan found at current.
const (
	LiveNone       = "none"       // nothing at current: a first deploy
	LiveRelease    = "release"    // current names a release on the host
	LiveMissing    = "missing"    // current names a release that is not on the host
	LiveUnreadable = "unreadable" // the plan couldn't read current (it warns)
	// LiveUnproven: current names a release on the host that never passed
	// its gate (deploy_info.json names it with a gate of failed, or still
	// pending: its deploy never recorded a verdict). It is not live to a
	// deploy: its version ships again and is checked again, and no
	// rollback returns to it.
	LiveUnproven = "unproven"
)

// Live is the target's live release when the plan was made.
type Live struct {
	State string `json:"state"`
	// Release is the last segment of current's target (trailing slashes
	// dropped): the previous release a rollback returns to, when State is
	// "release" (not when it is "unproven").
	Release string `json:"release,omitempty"`
}

// Preflight states.
const (
	PreflightSkipped = "skipped" // --skip-preflight
	PreflightNone    = "none"    // the config declares no apply-managed resource
	PreflightChecks  = "checks"  // Count resources, Digest of their declarations and pins
)

// Preflight is what the drift preflight checks.
type Preflight struct {
	State  string `json:"state"`
	Count  int    `json:"count,omitempty"`
	Digest string `json:"digest,omitempty"`
}

// Steps are the deploy's steps, in the order they run.
type Steps struct {
	// Build is deploy.build, run in the checkout ("" for none).
	Build string `json:"build,omitempty"`
	// Artifacts are what the tarball packs (deploy.artifacts).
	Artifacts []string `json:"artifacts"`
	// Upload is where the archive goes on the target.
	Upload Upload `json:"upload"`
	// Script is the release script: the remote script's whole text.
	Script string `json:"script"`
	// Restart is the restart command, run as root ("" for none).
	Restart string `json:"restart,omitempty"`
	// Health and Ready are the checks after the restart (nil for none).
	Health *Check `json:"health,omitempty"`
	Ready  *Check `json:"ready,omitempty"`
}

// Upload is the archive's place on the target.
type Upload struct {
	// Name is the archive's name in the app path,
	// .zap-deploy-<user>-<version>.tar.gz.
	Name string `json:"name"`
}

// Check is an https poll.
type Check struct {
	// URL is the URL as the deploy block builds it, its references (the
	// health domain's) unresolved: a plain reference's value is in the
	// plan's References, which the hash covers, and zap-deploy run
	// resolves it only when it polls (Resolve). So a secret's value is in
	// no plan.
	URL        declaration.Text `json:"url"`
	Attempts   int              `json:"attempts"`
	IntervalMS int              `json:"interval_ms"`
}

// Read decodes a deploy plan strictly and checks its shape. It does not
// check the hash; see Verify.
func Read(data []byte) (*Plan, error) {
	var p Plan
	if err := strict.Read(data, Format, nil, &p); err != nil {
		return nil, err
	}
	if p.Steps.Artifacts == nil {
		return nil, &canon.PathError{Path: "steps.artifacts", Msg: "required field missing"}
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &p, nil
}

// Encode writes p in canonical form.
func (p *Plan) Encode() ([]byte, error) { return canon.Marshal(p) }

// The patterns compile on first use: zap initializes this package on every
// command, deploy or not, and compiling them took about a millisecond of
// each start.
var (
	hexHash   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{64}$`) })
	versionRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{4,64}(-dirty-[0-9a-f]{8})?$`) })
	dirtyID   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{8}$`) })
)

// IsRelease says whether name is named the way Zap names a release: a
// commit hash of 4 to 64 hex digits, alone or with -dirty-<id>.
func IsRelease(name string) bool { return versionRE().MatchString(name) }

// Validate checks the plan's shape: known enumerations, a version named as
// Zap names a release and agreeing with the tree state.
func (p *Plan) Validate() error {
	bad := func(path, format string, args ...any) error {
		return &canon.PathError{Path: path, Msg: fmt.Sprintf(format, args...)}
	}
	s := p.Source
	switch {
	case !IsRelease(s.Version):
		return bad("source.version", "%q is not a release name (4 to 64 hex digits, optionally -dirty- and 8 hex)", s.Version)
	case s.Tree != Clean && s.Tree != Dirty:
		return bad("source.tree", "%q is neither %q nor %q", s.Tree, Clean, Dirty)
	case s.Tree == Dirty && !dirtyID().MatchString(s.DirtyID):
		return bad("source.dirty_id", "a dirty tree's id is 8 lowercase hex digits, not %q", s.DirtyID)
	case s.Tree == Clean && s.DirtyID != "":
		return bad("source.dirty_id", "a clean tree has no dirty id")
	case s.Tree == Dirty && s.Version[len(s.Version)-len(s.DirtyID):] != s.DirtyID:
		return bad("source.version", "%q doesn't end in the dirty id %s", s.Version, s.DirtyID)
	}
	switch p.Live.State {
	case LiveRelease, LiveMissing, LiveUnproven:
		if !IsRelease(p.Live.Release) {
			return bad("live.release", "%q is not a release name", p.Live.Release)
		}
	case LiveNone, LiveUnreadable:
		if p.Live.Release != "" {
			return bad("live.release", "names %q, but live.state is %q", p.Live.Release, p.Live.State)
		}
	default:
		return bad("live.state", "%q is not one of none, release, unproven, missing, unreadable", p.Live.State)
	}
	switch f := p.Preflight; f.State {
	case PreflightSkipped, PreflightNone:
		if f.Count != 0 || f.Digest != "" {
			return bad("preflight", "a %s preflight has no count or digest", f.State)
		}
	case PreflightChecks:
		if f.Count < 1 || !hexHash().MatchString(f.Digest) {
			return bad("preflight", "checks name a count of 1 or more and a digest of 64 hex digits")
		}
	default:
		return bad("preflight.state", "%q is not one of skipped, none, checks", f.State)
	}
	if p.Hash != "" && !hexHash().MatchString(p.Hash) {
		return bad("plan_hash", "is not 64 lowercase hex digits")
	}
	return p.validateChecks()
}

// validateChecks holds each check's URL to https and each of its
// references to one the plan records, so the hash covers what it resolves
// to.
func (p *Plan) validateChecks() error {
	for i, c := range []*Check{p.Steps.Health, p.Steps.Ready} {
		name := [...]string{"steps.health", "steps.ready"}[i]
		if c == nil {
			continue
		}
		if parts := c.URL.Parts(); len(parts) == 0 || parts[0].Env != "" || !strings.HasPrefix(parts[0].Lit, "https://") {
			return &canon.PathError{Path: name + ".url", Msg: "doesn't start with https://"}
		}
		for _, ref := range c.URL.Refs() {
			if p.Reference(ref) == nil {
				return &canon.PathError{Path: name + ".url", Msg: fmt.Sprintf("references %s, which the plan's references don't list", ref)}
			}
		}
	}
	return nil
}

// Reference is the plan's record of the reference name, nil for none.
func (p *Plan) Reference(name string) *observation.Reference {
	for i := range p.References {
		if p.References[i].Name == name {
			return &p.References[i]
		}
	}
	return nil
}

// Unset names the plain references the plan records with no value: set
// neither in the environment nor by --env-file when the plan was made, so
// the plan names no URL through them and no wetrun takes it.
func (p *Plan) Unset() []string {
	var out []string
	for _, r := range p.References {
		if !r.Secret && r.Value == "" {
			out = append(out, r.Name)
		}
	}
	return out
}

// Shown is t as the plan shows it: a plain reference as its recorded
// value (an empty one as [UNSET:NAME]), a secret as [MASKED:NAME].
func (p *Plan) Shown(t declaration.Text) string {
	s, _ := t.Resolve(func(name string) (string, bool) {
		switch r := p.Reference(name); {
		case r != nil && !r.Secret && r.Value == "":
			return "[UNSET:" + name + "]", true
		case r != nil && !r.Secret:
			return r.Value, true
		}
		return "[MASKED:" + name + "]", true
	})
	return s
}

// Resolve is t with each reference resolved from env, for a step that acts
// on it: every reference must be one the plan records as plain, and env
// must give it the value recorded, so a run acts on what was reviewed. The
// error names the reference, never a value.
func (p *Plan) Resolve(t declaration.Text, env func(string) (string, bool)) (string, error) {
	for _, name := range t.Refs() {
		r := p.Reference(name)
		switch v, ok := env(name); {
		case r == nil:
			return "", fmt.Errorf("the reference %s isn't among the plan's references", name)
		case r.Secret:
			return "", fmt.Errorf("the reference %s is a secret, so no plan can name its value", name)
		case !ok || v == "":
			return "", fmt.Errorf("the reference %s is unset or empty here; the plan was made with it set", name)
		case v != r.Value:
			return "", fmt.Errorf("the reference %s resolves to a value other than the one the plan recorded: make a new plan", name)
		}
	}
	return t.Resolve(env)
}

// hashTag opens the hashed bytes, so a deploy's plan_hash can't be taken
// for a convergence plan's or the hash of anything else.
const hashTag = "zap deploy plan_hash v1\n"

// Hash computes a deploy's plan_hash the way plan.Hash computes a
// convergence plan's: blake3 over a fixed tag, then, each length-prefixed,
// the canonical plan with an empty plan_hash and the text of each of Zap's
// own scripts the plan runs but doesn't print (the archive's install and
// the rollback's swap), in the order given.
func Hash(p *Plan, scripts ...string) (string, error) {
	c := *p
	c.Hash = ""
	doc, err := canon.Marshal(&c)
	if err != nil {
		return "", err
	}
	h := blake3.New()
	h.WriteString(hashTag)
	for _, s := range append([]string{string(doc)}, scripts...) {
		h.WriteString(strconv.Itoa(len(s)) + ":")
		h.WriteString(s)
		h.WriteString("\n")
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Verify recomputes p's hash with scripts and compares it with p.Hash.
func Verify(p *Plan, scripts ...string) error {
	got, err := Hash(p, scripts...)
	if err != nil {
		return err
	}
	if got != p.Hash {
		return fmt.Errorf("plan_hash: the deploy plan hashes to %s, not %s (the plan was edited, or made by a zap whose deploy scripts differ)", got, p.Hash)
	}
	return nil
}
