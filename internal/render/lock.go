package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/zap-go/zap/internal/escape"
	"github.com/zap-go/zap/internal/lock"
	"github.com/zap-go/zap/internal/lockhash"
)

// BannerLock leads a pass whose tracked pins in zap.lock aren't all
// current.
const BannerLock = "LOCK"

// LockView is the standing of a config's tracked pins as a command read it.
type LockView struct {
	// Report is the standing; nil under --no-lock.
	Report *lockhash.Report
	// Minted are the missing pins this pass fetched and minted.
	Minted []lock.Entry
	// Written is true when the minted pins were written to zap.lock (a
	// wetrun), false when they wait for one (a dry apply).
	Written bool
	// NoLock is --no-lock: no entry was read. Tracked is then how many
	// resources have a tracked pin.
	NoLock  bool
	Tracked int
}

func (v *LockView) minted(id string) *lock.Entry {
	for i := range v.Minted {
		if v.Minted[i].ID == id {
			return &v.Minted[i]
		}
	}
	return nil
}

// Lock writes the LOCK banner when a tracked pin isn't current or an entry
// is orphaned, one line each with what to run, and reports whether it
// wrote it. A missing pin the pass minted says so, and whether it was
// written. Under --no-lock it says no entry was read, when the config has
// tracked pins.
func Lock(w io.Writer, v *LockView) bool {
	if v.NoLock {
		if v.Tracked == 0 {
			return false
		}
		fmt.Fprintf(w, "%s — --no-lock: no entry of zap.lock was read, so the %d resource(s) with a tracked pin hold\n", BannerLock, v.Tracked)
		return true
	}
	if v.Report == nil {
		return false
	}
	findings := v.Report.Findings()
	if len(findings) == 0 {
		return false
	}
	fmt.Fprintf(w, "%s — zap.lock: %s\n", BannerLock, lockCounts(v.Report))
	for _, s := range findings {
		why := s.Why()
		if m := v.minted(s.ID); m != nil && s.Class == lockhash.Missing {
			if v.Written {
				why = "minted by fetching and written to zap.lock: blake3 " + m.Blake3
			} else {
				why = "resolved by fetching, not yet written to zap.lock (zap apply --wetrun writes it): blake3 " + m.Blake3
			}
		}
		fmt.Fprintf(w, "  %s  %s: %s: %s\n", escape.Line(s.ID), escape.Line(s.Kind), s.Class, escape.Line(why))
	}
	return true
}

// lockCounts is "N tracked pin(s): a current, b missing, ..." with the
// orphans after, naming only the classes there are.
func lockCounts(r *lockhash.Report) string {
	var parts []string
	for _, c := range []lockhash.Class{lockhash.Current, lockhash.Missing, lockhash.Stale, lockhash.Unverifiable} {
		n := 0
		for _, s := range r.Tracked {
			if s.Class == c {
				n++
			}
		}
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, c))
		}
	}
	out := fmt.Sprintf("%d tracked pin(s)", len(r.Tracked))
	if len(parts) > 0 {
		out += ": " + strings.Join(parts, ", ")
	}
	if n := len(r.Orphans); n > 0 {
		out += fmt.Sprintf("; %d orphaned entr%s", n, plural(n, "y", "ies"))
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// LockStanding writes zap status's standing line, and under it a line for
// each pin that isn't current: how the tracked pins stand against zap.lock
// now. A config with no tracked pin and a lock with no entry have none.
func LockStanding(w io.Writer, v *LockView) {
	switch {
	case v.NoLock && v.Tracked == 0, !v.NoLock && (v.Report == nil || len(v.Report.Tracked) == 0 && len(v.Report.Orphans) == 0):
		return
	case v.NoLock:
		fmt.Fprintf(w, "lock: not read (--no-lock); %d resource(s) with a tracked pin\n", v.Tracked)
	default:
		fmt.Fprintf(w, "lock: %s\n", lockCounts(v.Report))
		for _, s := range v.Report.Findings() {
			fmt.Fprintf(w, "  %s  %s: %s: %s\n", escape.Line(s.ID), escape.Line(s.Kind), s.Class, escape.Line(s.Why()))
		}
	}
}

// LockNotes writes a note: line for each reference the lock addresses by
// name only because its name or the form of its value reads as a secret.
func LockNotes(w io.Writer, notes []lockhash.Note) {
	for _, n := range notes {
		fmt.Fprintf(w, "note: %s is hashed in zap.lock as [MASKED:%s], not by its value (%s), so a change to it doesn't make %s stale; if it isn't a secret, zap.unmask('%s') makes its value count\n",
			escape.Line(n.Name), escape.Line(n.Name), escape.Line(n.Reason), names(n.IDs), escape.Line(n.Name))
	}
}
