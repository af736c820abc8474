package lockhash

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zap-go/zap/internal/lock"
	"github.com/zap-go/zap/pkg/declaration"
)

// Class is the standing of a tracked pin.
type Class string

// The standings.
const (
	// Current: the entry's config_hash is the declaration's as it is now.
	Current Class = "current"
	// Missing: the lock has no entry for the resource.
	Missing Class = "missing"
	// Stale: the declaration changed since the entry was minted (or the
	// entry is of another kind).
	Stale Class = "stale"
	// Unverifiable: the config_hash differs, and a variable it depends on
	// is unset, so the change may be that variable's.
	Unverifiable Class = "unverifiable"
	// Orphaned: an entry no tracked resource has.
	Orphaned Class = "orphaned"
)

// Standing is one tracked pin's standing, or one orphaned entry's.
type Standing struct {
	ID    string
	Kind  string // the entry's kind (declaration.LockRemoteFile, ...)
	Class Class
	// Entry is the lock's entry; nil when it is missing.
	Entry *lock.Entry
	// Unset names the variables that make it unverifiable.
	Unset []string
}

// Reason is why a resource whose pin isn't current holds, naming what to
// run; "" for a current one.
func (s Standing) Reason() string {
	switch s.Class {
	case Current:
		return ""
	case Missing:
		return fmt.Sprintf("its pin is tracked in zap.lock, which has no entry for it: zap apply mints one, or run zap update %s", s.ID)
	}
	return fmt.Sprintf("its zap.lock entry is %s: %s", s.Class, s.Why())
}

// Why says what the standing means and what to run; "" for a current one.
func (s Standing) Why() string {
	switch s.Class {
	case Missing:
		return fmt.Sprintf("there is no entry for it; zap apply mints one, or run zap update %s", s.ID)
	case Stale:
		return fmt.Sprintf("the declaration changed since its pin was minted; run zap update %s", s.ID)
	case Unverifiable:
		return fmt.Sprintf("its config_hash differs while %s %s unset, so whether the declaration changed can't be told; set %s (--env-file or the environment)",
			strings.Join(s.Unset, ", "), isAre(len(s.Unset)), itThem(len(s.Unset)))
	case Orphaned:
		return "no resource tracks a pin under this id; zap lock drops it"
	}
	return ""
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

func itThem(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// Report is the standing of every tracked pin of a declaration against a
// lock, and the notes zap lock, zap update and zap lock --check print.
type Report struct {
	// Tracked is each tracked resource's standing, in declaration order.
	Tracked []Standing
	// Orphans are the entries no tracked resource has, by id.
	Orphans []Standing
	Notes   []Note
}

// Of is the standing of the tracked resource id; nil when id isn't one.
func (r *Report) Of(id string) *Standing {
	if i := slices.IndexFunc(r.Tracked, func(s Standing) bool { return s.ID == id }); i >= 0 {
		return &r.Tracked[i]
	}
	return nil
}

// Count is how many tracked pins and orphans stand as c.
func (r *Report) Count(c Class) int {
	n := 0
	for _, s := range r.Tracked {
		if s.Class == c {
			n++
		}
	}
	if c == Orphaned {
		n += len(r.Orphans)
	}
	return n
}

// Findings are the standings that aren't current: the tracked pins that
// aren't, then the orphans.
func (r *Report) Findings() []Standing {
	var out []Standing
	for _, s := range r.Tracked {
		if s.Class != Current {
			out = append(out, s)
		}
	}
	return append(out, r.Orphans...)
}

// Tracked counts d's resources whose pin is tracked in zap.lock.
func Tracked(d *declaration.Declaration) int {
	n := 0
	for i := range d.Resources {
		if f, ok := d.Resources[i].Fetched(); ok && f.Tracked() {
			n++
		}
	}
	return n
}

// Stand classifies every tracked resource of the declaration against l
// (nil: no lock, so every tracked pin is missing).
func (h *Hasher) Stand(l *lock.Lock) (*Report, error) {
	rep := &Report{}
	tracked := map[string]bool{}
	var rs []*declaration.Resource
	for i := range h.d.Resources {
		r := &h.d.Resources[i]
		f, ok := r.Fetched()
		if !ok || !f.Tracked() {
			continue
		}
		tracked[r.ID] = true
		rs = append(rs, r)
		s, err := h.stand(r, f, l.Entry(r.ID))
		if err != nil {
			return nil, err
		}
		rep.Tracked = append(rep.Tracked, s)
	}
	if l != nil {
		for i := range l.Entries {
			e := &l.Entries[i]
			if !tracked[e.ID] {
				rep.Orphans = append(rep.Orphans, Standing{ID: e.ID, Kind: e.Kind, Class: Orphaned, Entry: e})
			}
		}
	}
	rep.Notes = h.notes(rs)
	return rep, nil
}

// stand is the standing of the tracked resource r (f its Fetched) with
// entry e (nil: none).
func (h *Hasher) stand(r *declaration.Resource, f declaration.Fetched, e *lock.Entry) (Standing, error) {
	s := Standing{ID: r.ID, Kind: f.Kind, Entry: e}
	switch {
	case e == nil:
		s.Class = Missing
		return s, nil
	case e.Kind != f.Kind:
		s.Class = Stale
		return s, nil
	}
	ch, err := h.ConfigHash(r, e.Blake3)
	if err != nil {
		return s, err
	}
	if ch == e.ConfigHash {
		s.Class = Current
		return s, nil
	}
	if s.Unset = h.unverified(r, f); len(s.Unset) > 0 {
		s.Class = Unverifiable
	} else {
		s.Class = Stale
	}
	return s, nil
}
