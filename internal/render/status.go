package render

import (
	"fmt"
	"io"

	"github.com/zap-go/zap/internal/escape"
	"github.com/zap-go/zap/internal/state"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// StatusView is what zap status shows: the last run of a config on a host,
// set beside the config as it is now.
type StatusView struct {
	Host string
	// Last is the last-run report, nil when there is none.
	Last *state.Report
	// Resources are the declared resources, in declaration order.
	Resources []StatusResource
	// Orphans are the ids in the report that are no longer declared, and
	// Elsewhere counts them instead when the report is of another target
	// (pass.Session's Orphans and Elsewhere).
	Orphans   []string
	Elsewhere int
	// TargetChanged says the target (zap.target) hashes to something else
	// now than in the last run: its host, user, port, home,
	// package_manager...
	TargetChanged bool
	// UnresolvedNow names the referenced variables unset or empty now.
	UnresolvedNow []string
	// Lock is how the tracked pins stand against zap.lock now; nil
	// leaves out the lock: line.
	Lock *LockView
}

// StatusResource is one declared resource as the last run saw it.
type StatusResource struct {
	ID   string
	Type declaration.Kind
	// Read is false when the last run has no verdict for it.
	Read    bool
	Verdict observation.Verdict
	// Changed is true when its declaration hashes differently now.
	Changed bool
	// Secret is true when it references a secret, whose changed value
	// its hash doesn't show.
	Secret bool
}

// Status writes the last-run status: the banners, when and by which command
// the last run ran, each declared resource's verdict in it with its notes,
// the orphaned resources, and the plan_hash a wetrun binds to.
func Status(w io.Writer, v *StatusView) {
	if v.Lock != nil {
		LockStanding(w, v.Lock)
	}
	lead := false
	if v.Last != nil && len(v.Last.Unresolved) > 0 {
		fmt.Fprintf(w, "%s — in the last run %d referenced variable(s) were unset or empty, so its comparison cannot be trusted: %s\n",
			BannerUnverifiable, len(v.Last.Unresolved), names(v.Last.Unresolved))
		lead = true
	}
	if len(v.UnresolvedNow) > 0 {
		fmt.Fprintf(w, "%s — %d referenced variable(s) are unset or empty now, so what changed since can't be told: %s\n",
			BannerUnverifiable, len(v.UnresolvedNow), names(v.UnresolvedNow))
		fmt.Fprintln(w, "provide them (--env-file or the environment) and re-run.")
		lead = true
	}
	if lead {
		fmt.Fprintln(w)
	}
	if v.Last == nil {
		fmt.Fprintf(w, "no last run of this config on %s: every resource is not read\n", escape.Line(v.Host))
	} else {
		fmt.Fprintf(w, "last run: %s, %s, on %s\n", escape.Line(v.Last.Time), CommandName(v.Last.Command), escape.Line(v.Last.Host))
		if v.TargetChanged {
			fmt.Fprintln(w, "target: zap.target (config changed since): every verdict below was read under the target as it was")
		}
	}
	fmt.Fprintln(w, "(what the last run saw, not the machine now: zap plan reads it live)")
	fmt.Fprintln(w)
	for _, r := range v.Resources {
		mark := "-"
		if r.Read {
			mark = Mark(r.Verdict)
		}
		fmt.Fprintf(w, "%-*s  %s  %s", markWidth, mark, escape.Line(r.ID), escape.Line(string(r.Type)))
		switch {
		case !r.Read:
			fmt.Fprint(w, "  (not read)")
		case r.Changed:
			fmt.Fprint(w, "  (config changed since)")
		}
		if r.Read && r.Secret {
			fmt.Fprint(w, "  (references a secret: a new value of it doesn't show here)")
		}
		fmt.Fprintln(w)
	}
	Orphans(w, v.Orphans, v.Elsewhere)
	if v.Last != nil && v.Last.Preview && v.Last.PlanHash != "" {
		fmt.Fprintf(w, "\npreview: a wetrun binds to plan_hash %s\n", escape.Line(v.Last.PlanHash))
	}
}

// CommandName says which command wrote a report.
func CommandName(c state.Command) string {
	switch c {
	case state.CmdObserve:
		return "the observe pass of zap apply --wetrun"
	case state.CmdRefused:
		return "zap apply --wetrun, refused (a preview)"
	case state.CmdDeclined:
		return "zap apply --wetrun, declined (a preview)"
	case state.CmdPlan, state.CmdApply:
		return "zap " + string(c) + " (a preview)"
	}
	return "zap " + escape.Line(string(c))
}

// Orphans writes, after a blank line, the warning for each id an earlier
// run read that the config no longer declares, as status, plan and apply
// show them; or, when the last run was against another target, one note
// that its elsewhere such ids aren't this target's. Nothing when there is
// neither.
func Orphans(w io.Writer, ids []string, elsewhere int) {
	if len(ids) == 0 && elsewhere == 0 {
		return
	}
	fmt.Fprintln(w)
	if elsewhere > 0 {
		fmt.Fprintf(w, "note: the last run was against another zap.target; its %d resource(s) no longer declared aren't compared with this one\n", elsewhere)
	}
	for _, id := range ids {
		fmt.Fprintf(w, "warning: orphaned: %s was in the last run and is no longer declared; Zap never removes what you stop declaring\n", escape.Line(id))
	}
}
