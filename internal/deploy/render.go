package deploy

import (
	"fmt"
	"strings"

	"github.com/zap-go/zap/internal/escape"
	"github.com/zap-go/zap/pkg/deployplan"
)

// Text renders a made plan as the dry run shows it: the target, the tree,
// the live release and the preflight, every step with its command, script,
// paths or URL, the references, then the plan_hash, or why there is none.
// Text from the config, the environment and the target is escaped
// (<U+XXXX>), so no value can hide or forge a line.
func Text(m *Made) string {
	p := m.Plan
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	e := escape.Line
	for _, w := range m.Warnings {
		line("warning: %s", e(w))
	}
	if unset := p.Unset(); len(unset) > 0 {
		line("warning: deploy.health.domain: the reference %s is unset or empty, so this plan names no health URL and a wetrun refuses it: provide it (--env-file or the environment)", e(strings.Join(unset, ", ")))
	}
	switch {
	case p.Live.State == deployplan.LiveMissing:
		line("warning: current names the release %s, which is not on the host: this deploy replaces it", e(p.Live.Release))
	case p.Live.State == deployplan.LiveUnproven && p.Live.Release == p.Source.Version:
		line("warning: current names the release %s, which never passed its gate (deploy_info.json records it failed, or no verdict): this deploy ships it again and checks it again", e(p.Live.Release))
	case p.Live.State == deployplan.LiveUnproven:
		line("warning: current names the release %s, which never passed its gate (deploy_info.json records it failed, or no verdict): no rollback returns to it", e(p.Live.Release))
	}
	if AlreadyLive(p) {
		line("server already at this version: %s is live on %s (--force ships it again)", e(p.Source.Version), e(p.Target.Host))
		return b.String()
	}
	line("deploy %s to %s (target %s) as %s", e(p.Source.Version), e(p.Target.Host), e(p.Target.Declared), e(p.Target.User))
	line("  commit:    %s", e(p.Source.Commit))
	switch p.Source.Tree {
	case deployplan.Dirty:
		line("  tree:      uncommitted changes or untracked files (id %s)", p.Source.DirtyID)
	default:
		line("  tree:      clean")
	}
	line("  operator:  %s", e(p.Operator))
	switch p.Live.State {
	case deployplan.LiveNone:
		line("  live:      nothing at %s/current: a first deploy, nothing to roll back to", e(p.Path))
	case deployplan.LiveRelease:
		line("  live:      %s (the rollback returns to it)", e(p.Live.Release))
	case deployplan.LiveMissing:
		line("  live:      current names %s, which is not on the host", e(p.Live.Release))
	case deployplan.LiveUnproven:
		line("  live:      %s, which never passed its gate: no rollback returns to it", e(p.Live.Release))
	default:
		line("  live:      current couldn't be read")
	}
	switch f := p.Preflight; f.State {
	case deployplan.PreflightSkipped:
		line("  preflight: skipped (--skip-preflight)")
	case deployplan.PreflightNone:
		line("  preflight: nothing declared to check")
	default:
		line("  preflight: %d resource(s), digest %s", f.Count, f.Digest)
	}
	showSteps(&b, p, m.Scripts)
	if len(p.References) > 0 {
		line("references:")
		for _, r := range p.References {
			if r.Secret {
				line("  %s: (a secret)", e(r.Name))
			} else {
				line("  %s = %s", e(r.Name), e(r.Value))
			}
		}
	}
	switch {
	case p.Source.Tree == deployplan.Dirty && !p.Flags.Force:
		line("no plan_hash: the tree has uncommitted changes or untracked files; a wetrun is refused without --force")
	case len(p.Unset()) > 0:
		line("no plan_hash: the reference %s is unset or empty; a wetrun is refused until it is set", e(strings.Join(p.Unset(), ", ")))
	case m.Unbindable != "":
		line("UNBINDABLE: the host, connecting user or health domain resolves through the masked reference %s: no plan_hash, and a wetrun is refused", e(m.Unbindable))
	case p.Hash == "":
		line("UNBINDABLE: the host, connecting user or health domain resolves through a masked reference: no plan_hash, and a wetrun is refused")
	default:
		showHashed(&b, m.Scripts)
		line("plan_hash: %s", p.Hash)
	}
	return b.String()
}

// showHashed names Zap's own scripts the plan runs but its steps don't
// print, each by its digest, or with scripts prints them whole: the hash
// covers their bytes.
func showHashed(b *strings.Builder, scripts bool) {
	names := []string{"install", "rollback", "gate"}
	if !scripts {
		b.WriteString("zap's scripts the steps run, hashed with the plan (--scripts prints them whole):\n")
		for i, s := range Hashed() {
			fmt.Fprintf(b, "  %-9s %s\n", names[i]+":", ScriptDigest(s))
		}
		return
	}
	for i, s := range Hashed() {
		fmt.Fprintf(b, "zap's %s script, hashed with the plan (%s):\n     %s\n", names[i], ScriptDigest(s), escape.Indent(s, "     "))
	}
}

// showSteps writes the plan's steps, numbered. The release script shows its
// settings and prepare commands, which the config owns, and names Zap's
// constant body by its digest, unless scripts asks for it whole or the body
// isn't this build's (a plan made by another zap, or a test build's kill).
func showSteps(b *strings.Builder, p *deployplan.Plan, scripts bool) {
	n := 0
	step := func(format string, args ...any) {
		n++
		fmt.Fprintf(b, "%d. "+format+"\n", append([]any{n}, args...)...)
	}
	e := escape.Line
	s := p.Steps
	if s.Build != "" {
		step("build (locally, in the checkout):\n     %s", escape.Indent(s.Build, "     "))
	}
	step("tarball (locally, in a private directory of the run): tar -czf release.tar.gz -- %s", e(strings.Join(s.Artifacts, " ")))
	step("upload: %s/%s, as %s, mode 600, checked by SHA-512", e(p.Path), e(s.Upload.Name), e(p.Target.User))
	head, ok := strings.CutSuffix(s.Script, releaseBody)
	switch {
	case ok && !scripts:
		step("release script (sh, on the target, as %s): these settings and prepare commands,\n     %s\n     then zap's release script body, %s, %d lines (--scripts prints it whole):\n     lock, recover, check current, extract, link shared, prepare, place, swap, record, prune",
			e(p.Target.User), escape.Indent(strings.TrimSuffix(head, "\n"), "     "), ScriptDigest(releaseBody), strings.Count(releaseBody, "\n"))
	case ok:
		step("release script (sh, on the target, as %s), its body zap's release script %s:\n     %s", e(p.Target.User), ScriptDigest(releaseBody), escape.Indent(s.Script, "     "))
	default:
		step("release script (sh, on the target, as %s), its body not this zap's release script, so shown whole:\n     %s", e(p.Target.User), escape.Indent(s.Script, "     "))
	}
	if s.Restart != "" {
		step("restart (as root): %s", e(s.Restart))
	}
	if s.Health != nil {
		step("health: GET %s until 2xx, %d attempt(s) %dms apart, no redirects followed", e(p.Shown(s.Health.URL)), s.Health.Attempts, s.Health.IntervalMS)
	}
	if s.Ready != nil {
		step("readiness: GET %s until 2xx (404: skipped with a warning)", e(p.Shown(s.Ready.URL)))
	}
	step("%s", rollbackLine(p))
}

// rollbackLine says what a failure after the swap does, by what the plan
// has after it: the restart, the health check (readiness only with it).
func rollbackLine(p *deployplan.Plan) string {
	s := p.Steps
	var checks []string
	if s.Restart != "" {
		checks = append(checks, "restart")
	}
	if s.Health != nil {
		checks = append(checks, "health check")
	}
	if s.Ready != nil {
		checks = append(checks, "readiness check")
	}
	failed := strings.Join(checks, ", ")
	if n := len(checks); n > 1 {
		failed = strings.Join(checks[:n-1], ", ") + " or " + checks[n-1]
	}
	switch {
	case len(checks) == 0:
		return "no rollback: nothing runs after the swap (no service to restart, no health check), so the release is live once it is swapped in"
	case p.Live.State != deployplan.LiveRelease || p.Live.Release == p.Source.Version:
		return "on a failed " + failed + ": nothing to roll back to (a manual rollback is needed)"
	}
	then := "restart the service and check health again"
	switch {
	case s.Restart == "":
		then = "check health again"
	case s.Health == nil:
		then = "restart the service"
	}
	return fmt.Sprintf("on a failed %s: current back to %s/releases/%s (under the deploy lock), then %s",
		failed, escape.Line(p.Path), escape.Line(p.Live.Release), then)
}
