package pass

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/fetch"
	"github.com/zap-go/zap/internal/lock"
	"github.com/zap-go/zap/internal/lockhash"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
)

// Tracked pins: the content a resource fetches is pinned in zap.lock when
// the config gives no blake3 for it. Every command that reads the lock
// classifies each tracked pin (Standing); zap-detect takes the current ones
// from the lock itself (--lock) and holds the rest. A dry apply mints a
// missing pin by fetching (MintMissing) and hands it to zap-detect (--pin)
// without writing it; a wetrun writes it (WriteEntries) before it executes.
// --no-lock (Env.NoLock) reads no entry, fetches nothing and writes
// nothing: every tracked pin holds its resource.

// Standing reads the config's lock and classifies the tracked pins of ev
// against it; nil under --no-lock.
func (s *Session) Standing(ev *Evaluation) (*lockhash.Report, error) {
	if s.env.NoLock {
		return nil, nil
	}
	l, err := s.ReadLock()
	if err != nil {
		return nil, err
	}
	rep, err := lockhash.New(ev.Decl, s.Res).Stand(l)
	if err != nil {
		return nil, exit.Failf(1, "zap.lock: %w", err)
	}
	return rep, nil
}

// Pins is what a pass read of the config's tracked pins.
type Pins struct {
	// Report is their standing against zap.lock; nil under --no-lock.
	Report *lockhash.Report
	// Minted are the missing ones this pass fetched and minted.
	Minted []lock.Entry
	// Tracked is how many resources have a tracked pin; fetches is
	// whether any resource fetches content, vendored or tracked.
	Tracked int
	fetches bool
}

// ReadPins classifies the tracked pins of ev against the lock (Pins) and,
// for apply (Env.MintPins), refuses a stale or unverifiable one (exit 2)
// and mints every missing one.
func (s *Session) ReadPins(ctx context.Context, ev *Evaluation) error {
	rep, err := s.Standing(ev)
	if err != nil {
		return err
	}
	s.Pins = Pins{Report: rep, Tracked: lockhash.Tracked(ev.Decl), fetches: fetches(ev.Decl)}
	if !s.env.MintPins {
		return nil
	}
	if err := RefuseStale(rep); err != nil {
		return err
	}
	s.Pins.Minted, err = s.MintMissing(ctx, ev, rep)
	return err
}

// NoLock reports whether the pass reads no lock entry (--no-lock).
func (s *Session) NoLock() bool { return s.env.NoLock }

// detectArgs are zap-detect's flags: the stages' (StageArgs), and for a
// config with a resource that fetches the lock it takes tracked pins from
// and the pins this pass minted.
func (s *Session) detectArgs() []string {
	return s.detectArgsFor(s.Pins.fetches)
}

// fetches reports whether a resource of d fetches content.
func fetches(d *declaration.Declaration) bool {
	for i := range d.Resources {
		if _, ok := d.Resources[i].Fetched(); ok {
			return true
		}
	}
	return false
}

// mayTrack reports whether a declaration's JSON may hold a resource that
// fetches (fetches): an early zap-detect (early.go), started before the
// declaration is read, takes the lock when it may, and is started again
// should the guess be wrong.
func mayTrack(out []byte) bool {
	for _, k := range []string{`"type":"remote"`, `"type":"build"`, `"type":"apt_repo"`} {
		if bytes.Contains(out, []byte(k)) {
			return true
		}
	}
	return false
}

func (s *Session) detectArgsFor(fetching bool) []string {
	args := s.StageArgs()
	if s.env.Diff {
		args = append(args, "--diff")
	}
	if s.env.NoLock || !fetching {
		return args
	}
	path, err := filepath.Abs(s.Lock)
	if err != nil {
		path = s.Lock
	}
	args = append(args, "--lock", path)
	for _, id := range slices.Sorted(mapKeys(s.minted)) {
		args = append(args, "--pin", id+"="+s.minted[id].Blake3)
	}
	return args
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// RefuseStale is apply's refusal of a tracked pin that is stale or
// unverifiable: an input to fix, exit 2, before anything is read.
func RefuseStale(rep *lockhash.Report) error {
	return RefuseStaleFor(rep, "apply acts on", "then apply")
}

// RefuseStaleFor is RefuseStale worded for the command that refuses: what
// it does with no pin it can't vouch for, and what follows zap update.
func RefuseStaleFor(rep *lockhash.Report, acts, then string) error {
	if rep == nil {
		return nil
	}
	var lines []string
	var ids []string
	for _, st := range rep.Tracked {
		if st.Class == lockhash.Stale || st.Class == lockhash.Unverifiable {
			lines = append(lines, fmt.Sprintf("%s (%s): %s", st.ID, st.Kind, st.Why()))
			ids = append(ids, st.ID)
		}
	}
	if len(lines) == 0 {
		return nil
	}
	return exit.Fail(2, fmt.Sprintf("zap.lock: %d tracked pin(s) aren't current, and %s no pin it can't vouch for:\n%s",
		len(lines), acts, strings.Join(lines, "\n")),
		"run zap update "+strings.Join(ids, " ")+" (it fetches again and re-mints), review the lock's diff, "+then)
}

// MintMissing fetches the content of every tracked pin rep lists missing,
// caching it, and mints its entry; zap-detect is handed the pins from then
// on. It returns the entries minted, in declaration order. Nothing is
// written: WriteEntries does that.
func (s *Session) MintMissing(ctx context.Context, ev *Evaluation, rep *lockhash.Report) ([]lock.Entry, error) {
	if rep == nil || rep.Count(lockhash.Missing) == 0 {
		return nil, nil
	}
	m, err := s.NewMinter(ev)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	var out []lock.Entry
	for _, st := range rep.Tracked {
		if st.Class != lockhash.Missing {
			continue
		}
		e, err := m.Mint(ctx, ResourceOf(ev.Decl, st.ID))
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	if s.minted == nil {
		s.minted = map[string]lock.Entry{}
	}
	for _, e := range out {
		s.minted[e.ID] = e
	}
	return out, nil
}

// WriteEntries records entries in the config's lock, read again just
// before, keeping everything else in it.
func (s *Session) WriteEntries(entries []lock.Entry) error {
	if len(entries) == 0 {
		return nil
	}
	l, err := s.ReadLock()
	if err != nil {
		return err
	}
	if l == nil {
		l = &lock.Lock{}
	}
	for _, e := range entries {
		l.Set(e)
	}
	return s.WriteLock(l)
}

// WriteLock writes the config's lock.
func (s *Session) WriteLock(l *lock.Lock) error {
	if err := lock.Write(s.Lock, l); err != nil {
		if errors.Is(err, lock.ErrLink) {
			return exit.BadInput(err, "zap.lock is committed beside the config: make it a regular file of its own")
		}
		return exit.Failf(1, "write %s: %w", s.Lock, err)
	}
	return nil
}

// Minter fetches tracked content and mints its entries: trust on first
// fetch, into the content cache.
type Minter struct {
	s        *Session
	h        *lockhash.Hasher
	f        *fetch.Fetcher
	minisign func() (*fetch.Minisign, error) // found once, on first use
}

// NewMinter is the Minter of ev's tracked pins. It needs the state
// directory, whose content cache takes what it fetches.
func (s *Session) NewMinter(ev *Evaluation) (*Minter, error) {
	if s.cache == nil {
		return nil, exit.Fail(2, "no state directory to keep fetched content in",
			"Zap keeps fetched content in $ZAP_HOME, or else $HOME/.zap: set one to an absolute path")
	}
	f := fetch.New(fetch.NewCache(s.cache.ContentCache()), fetch.Options{})
	find := sync.OnceValues(func() (*fetch.Minisign, error) { return fetch.FindMinisign(s.env.Getenv) })
	return &Minter{s: s, h: lockhash.New(ev.Decl, s.Res), f: f, minisign: find}, nil
}

// Hasher is the config_hash hasher the Minter mints with.
func (m *Minter) Hasher() *lockhash.Hasher { return m.h }

// Close drops the Minter's connections.
func (m *Minter) Close() { m.f.Close() }

// Mint fetches r's content (a build source verified first when it declares
// a signature) and mints its entry. It refuses (exit 2) a URL, credential
// or signature URL that references an unset variable, and an entry it
// can't hash without a secret that is unset; a fetch that fails is exit 1,
// or 2 for an input to fix (refused).
func (m *Minter) Mint(ctx context.Context, r *declaration.Resource) (lock.Entry, error) {
	f, ok := r.Fetched()
	if !ok {
		return lock.Entry{}, exit.Failf(2, "%s fetches nothing to pin", r.ID)
	}
	res := m.s.Res
	refs := f.URL.Refs()
	if f.Auth != nil {
		refs = append(refs, f.Auth.Refs()...)
	}
	if f.Verify != nil && f.Verify.SignatureURL != nil {
		refs = append(refs, f.Verify.SignatureURL.Refs()...)
	}
	unset := unsetIn(res.Unresolved, refs)
	if len(unset) > 0 {
		return lock.Entry{}, exit.Fail(2, fmt.Sprintf("%s: its url, auth or signature_url references %s, unset or empty, so it isn't fetched", r.ID, strings.Join(unset, ", ")),
			"set it (--env-file or the environment) and run again")
	}
	if names := m.h.UnsetSecrets(r, f); len(names) > 0 {
		return lock.Entry{}, exit.Fail(2, fmt.Sprintf("%s: no entry is minted while %s, which the config uses as a secret, %s unset: its value may be inside a reference in the url or path, and can't be masked out of the config_hash",
			r.ID, strings.Join(names, ", "), isAre(len(names))),
			"set it (--env-file or the environment) and run again")
	}
	req := fetch.Request{Declared: f.URL.String(), URL: res.Text(f.URL)}
	if f.Auth != nil {
		req.Bearer = res.Text(*f.Auth)
	}
	switch f.Kind {
	case declaration.LockAptKey:
		req.Limit = vocab.AptKeyLimit
	case declaration.LockBuild:
		req.Limit = vocab.BuildSourceLimit
	}
	if v := f.Verify; v != nil {
		sigDeclared, sigURL := "", ""
		if v.SignatureURL != nil {
			sigDeclared, sigURL = v.SignatureURL.String(), res.Text(*v.SignatureURL)
		}
		req = m.f.Verified(ctx, req, v.PublicKey, sigDeclared, sigURL, m.minisign)
	}
	e, err := m.f.Fetch(ctx, req)
	if err != nil {
		if f.Kind == declaration.LockAptKey && errors.Is(err, fetch.ErrTooLarge) {
			// Said as the wetrun says it when it fetches the key.
			return lock.Entry{}, exit.BadInput(fmt.Errorf("%s: key_url: %w: an apt signing key may be at most 1 MiB", r.ID, err))
		}
		if fetch.Refused(err) {
			return lock.Entry{}, exit.BadInput(fmt.Errorf("%s: %w", r.ID, err))
		}
		return lock.Entry{}, exit.Failf(1, "%s: %w", r.ID, err)
	}
	pin := e.Blake3
	e.Close()
	entry, err := m.h.Entry(r, f, pin)
	if err != nil {
		return lock.Entry{}, exit.InWorld(err)
	}
	return entry, nil
}

// ResourceOf is d's resource id; nil when there is none.
func ResourceOf(d *declaration.Declaration, id string) *declaration.Resource {
	for i := range d.Resources {
		if d.Resources[i].ID == id {
			return &d.Resources[i]
		}
	}
	return nil
}

func unsetIn(unresolved, names []string) []string {
	var out []string
	for _, n := range names {
		if slices.Contains(unresolved, n) && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}
