package zapcli

import (
	"context"
	"slices"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/lockhash"
	"github.com/zap-go/zap/internal/pass"
	"github.com/zap-go/zap/internal/render"
	"github.com/zap-go/zap/internal/resolve"
	"github.com/zap-go/zap/internal/state"
	"github.com/zap-go/zap/pkg/cliout"
	"github.com/zap-go/zap/pkg/observation"
)

// statusCommand is zap status [CONFIG].
func (a *app) statusCommand(f *flagSets) *ffcli.Command {
	fs := f.jobsFlag(f.lockFlag(f.eval("zap status")))
	f.jsonFlag(fs, "write the last run's view as one JSON document on stdout ("+cliout.StatusFormat+", docs/protocol.md), an error included", jsonMode{format: cliout.StatusFormat, command: "status"})
	return &ffcli.Command{
		Name:       "status",
		ShortUsage: "zap status [--json] [--no-lock] [-j N] [CONFIG...]",
		ShortHelp:  "what the last run saw, offline",
		LongHelp: `Evaluates the config and reads the last-run report for its target; never
touches the target. Each resource's verdict in that run, noting a resource
whose config changed since and one the last run didn't read, and the
target (zap.target) when its config changed since; resources in the report
no longer declared are listed as orphaned (only counted, in a note, when
the report is of another target). A preview's plan_hash
is the plan zap apply --wetrun binds to. The lock: line leads: how the
tracked pins stand against zap.lock now (current, missing, stale,
unverifiable, orphaned).

--json writes the same view as one JSON document on stdout instead, and an
error as that document's error; the exit status is the same.

Exit status: 0 the last run read every declared resource; 1 there is no
last run (unless nothing is declared), or the last run held a resource, was
unverifiable, or didn't read a declared resource, or a tracked pin isn't
current now; 2 an input error.

Several configs (paths, or one directory holding a project per host, each a
subdirectory with a zap.ts) run as several hosts: each host's own pass, at
most -j at once, its output grouped under its name, then a summary table
and the combined plan_hash (docs/cli.md, Several hosts in one command); the
exit status is the worst of the hosts'.`,
		FlagSet: fs,
		Exec: a.onConfigs(fs, a.cmdStatus, func(c *app, ctx context.Context, config string) error {
			return c.cmdStatus(ctx, config)
		}),
	}
}

// cmdStatus is zap status: the last run, offline. Its exit code is about the
// last run, not the machine now. A remote host that resolves to nothing is
// refused naming its variables (exit 2), as plan and detect refuse it.
func (a *app) cmdStatus(ctx context.Context, config string) error {
	s, ev, l, err := a.start(ctx, config, (*pass.Session).CheckHost)
	if err != nil {
		return err
	}
	res := s.Res
	h := pass.HostKey(ev.Decl, res)
	if err := s.ReadPins(ctx, ev); err != nil {
		return err
	}
	v := &render.StatusView{Host: h, UnresolvedNow: res.UnresolvedCompared, Lock: s.lockView(false)}
	seen := map[string]state.Resource{}
	if l != nil {
		v.Last = l.Report
		for _, r := range l.Report.Resources {
			seen[r.ID] = r
		}
	}
	hasher := resolve.NewHasher(res)
	code := 0
	if p := s.Pins; s.NoLock() && p.Tracked > 0 || p.Report != nil && len(p.Report.Findings()) > len(p.Report.Orphans) {
		// A tracked pin that isn't current holds its resource now.
		code = 1
	}
	for i := range ev.Decl.Resources {
		r := &ev.Decl.Resources[i]
		line := render.StatusResource{ID: r.ID, Type: r.Type}
		if got, ok := seen[r.ID]; ok {
			line.Read = true
			line.Verdict = got.Verdict
			hash, secret, err := hasher.Hash(r, lockPin(s.Pins.Report, r.ID))
			if err != nil {
				return exit.Failf(1, "state: %w", err)
			}
			line.Secret = secret
			// A secret this environment can't resolve can't be masked
			// out of the hash: fail closed to "changed since", never a
			// false "unchanged".
			line.Changed = hash != got.Hash || secret && unresolvedIn(r.Refs(), res.Unresolved)
			if got.Verdict == observation.Undetermined {
				code = 1
			}
		} else {
			code = 1
		}
		v.Resources = append(v.Resources, line)
	}
	v.Orphans, v.Elsewhere = s.Orphans, s.Elsewhere
	if l != nil {
		if len(l.Report.Unresolved) > 0 {
			code = 1
		}
		changed, err := pass.TargetChanged(res, ev.Decl, l.Report)
		if err != nil {
			return err
		}
		v.TargetChanged = changed
	}
	if a.json != nil {
		if err := a.writeDoc(statusDoc(v, code)); err != nil {
			return err
		}
		return exit.Reported(code)
	}
	render.Status(a.stdout, v)
	return exit.Reported(code)
}

// statusDoc is v as status --json writes it.
func statusDoc(v *render.StatusView, code int) *cliout.Status {
	doc := &cliout.Status{Format: cliout.StatusFormat, Exit: code, Host: v.Host, Orphans: v.Orphans,
		UnresolvedNow: v.UnresolvedNow, Lock: lockDoc(v.Lock)}
	if l := v.Last; l != nil {
		doc.Last = &cliout.Last{Time: l.Time, Command: string(l.Command), User: l.User, Preview: l.Preview, PlanHash: l.PlanHash,
			Unresolved: l.Unresolved, TargetChanged: v.TargetChanged}
	}
	for _, r := range v.Resources {
		sr := cliout.StatusResource{ID: r.ID, Type: string(r.Type), Changed: r.Changed, Secret: r.Secret}
		if r.Read {
			sr.Verdict = string(r.Verdict)
		}
		doc.Resources = append(doc.Resources, sr)
	}
	return doc
}

// lockPin is the pin zap.lock holds now for the tracked resource id, as
// rep read it: "" when the lock has no entry for it or isn't read
// (--no-lock), so a last run's pin reads "changed since" then.
func lockPin(rep *lockhash.Report, id string) string {
	if rep == nil {
		return ""
	}
	if st := rep.Of(id); st != nil && st.Entry != nil {
		return st.Entry.Blake3
	}
	return ""
}

// unresolvedIn reports whether any of refs is unresolved.
func unresolvedIn(refs, unresolved []string) bool {
	for _, n := range refs {
		if slices.Contains(unresolved, n) {
			return true
		}
	}
	return false
}
