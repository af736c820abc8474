package render

import (
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/escape"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

func sha512Hex(s string) string {
	sum := sha512.Sum512([]byte(s))
	return hex.EncodeToString(sum[:])
}

// The banners that lead a report, each naming what a pass couldn't
// establish or why it didn't act.
const (
	BannerUndetermined = "UNDETERMINED"
	BannerUnverifiable = "UNVERIFIABLE"
	BannerRefused      = "REFUSED"
	BannerDeclined     = "DECLINED"
	BannerResidual     = "RESIDUAL"
	BannerUnbindable   = "UNBINDABLE"
	BannerUnrecorded   = "UNRECORDED"
)

// Unbindable says a plan names no one machine: its target's host or
// connecting user goes through the secret references refs.
func Unbindable(w io.Writer, refs []string) {
	fmt.Fprintf(w, "%s — the target's host or connecting user goes through the secret reference %s, so this plan names no one machine:\n",
		BannerUnbindable, names(refs))
	fmt.Fprintln(w, "it has no plan_hash, is not recorded as a preview, and zap apply --wetrun refuses it.")
}

// Unrecorded says a pass kept no last-run report: its host goes through the
// secret references refs.
func Unrecorded(w io.Writer, refs []string) {
	fmt.Fprintf(w, "%s — the target's host goes through the secret reference %s, so no last-run report is kept for it\n",
		BannerUnrecorded, names(refs))
}

// Banners writes the UNDETERMINED banner for held resources (with the hint
// a remote target's sudo needs, c being the pass's context) and the
// UNVERIFIABLE banner for unresolved references, and reports whether it
// wrote either.
func Banners(w io.Writer, held []plan.Hold, unresolved []string, c observation.Context) bool {
	wrote := false
	if len(held) > 0 {
		Undetermined(w, held)
		SudoHint(w, held, c)
		wrote = true
	}
	if len(unresolved) > 0 {
		if wrote {
			fmt.Fprintln(w)
		}
		Unverifiable(w, unresolved)
		wrote = true
	}
	return wrote
}

// Undetermined lists each resource detection couldn't read with its reason,
// then the ones held behind them with what they wait on.
func Undetermined(w io.Writer, held []plan.Hold) {
	var read, behind []plan.Hold
	for _, h := range held {
		if h.Reason != "" {
			read = append(read, h)
		} else {
			behind = append(behind, h)
		}
	}
	fmt.Fprintf(w, "%s — %d resource(s) could not be read\n", BannerUndetermined, len(read))
	for _, h := range read {
		fmt.Fprintf(w, "  %s  %s: %s\n", escape.Line(h.ID), escape.Line(string(h.Type)), escape.Indent(h.Reason, "    "))
	}
	if len(behind) > 0 {
		fmt.Fprintf(w, "  held behind them (%d):\n", len(behind))
		for _, h := range behind {
			fmt.Fprintf(w, "    %s  %s: %s\n", escape.Line(h.ID), escape.Line(string(h.Type)), heldBehind(h))
		}
	}
	fmt.Fprintln(w, "nothing is planned for them, and converged is not established; the next pass reads them again")
}

// SudoHint writes SudoHintText as a hint line, when there is one.
func SudoHint(w io.Writer, held []plan.Hold, c observation.Context) {
	if h := SudoHintText(held, c); h != "" {
		fmt.Fprintf(w, "hint: %s\n", h)
	}
}

// SudoHintText says what a remote target needs when a resource was held
// because sudo wouldn't run without a password there: over SSH every read
// and write that needs root goes through sudo -n, which can't ask for one,
// so the connecting user needs passwordless sudo, for any account (a
// user's authorized_keys is written as that user). Empty for a local
// target, whose sudo Zap asks on the terminal first, and when no resource
// was held so. zap plan --json carries it as held_hints (zap detect's
// is DetectSudoHintText).
func SudoHintText(held []plan.Hold, c observation.Context) string {
	if c.Target == "local" || !slices.ContainsFunc(held, func(h plan.Hold) bool { return strings.Contains(h.Reason, detect.SudoFailed) }) {
		return ""
	}
	user, who := c.User, escape.Line(c.User)
	if user == "" {
		user, who = "USER", "the connecting user"
	}
	rule := vocab.Quote(user + " ALL=(ALL) NOPASSWD: ALL")
	return fmt.Sprintf("over SSH Zap runs the reads and writes that need root through sudo -n, which can't ask for a password: give %s passwordless sudo on %s, e.g. echo %s | sudo tee /etc/sudoers.d/zap-%s",
		who, escape.Line(c.Target), escape.Line(rule), escape.Line(user))
}

// Unverifiable names the referenced variables that are unset or empty, in
// the words of env.md.
func Unverifiable(w io.Writer, unresolved []string) {
	fmt.Fprintf(w, "%s — %d referenced variable(s) are unset or empty, so this comparison cannot be trusted: %s\n",
		BannerUnverifiable, len(unresolved), names(unresolved))
	fmt.Fprintln(w, "an unset reference resolves to an empty string, which can both hide real drift and invent drift that isn't there.")
	fmt.Fprintln(w, "provide them (--env-file or the environment) and re-run.")
}

// The reasons a wetrun refuses.
const (
	ReasonNoPreview  = "no preview yet"
	ReasonNotPreview = "the last run was not a preview"
	ReasonChanged    = "the plan changed since the preview"
	ReasonExpect     = "the plan does not match --expect-plan"
)

// Refused says a wetrun didn't execute, and why. expected is the
// --expect-plan hash when the reason is ReasonExpect.
func Refused(w io.Writer, reason, expected string) {
	fmt.Fprintf(w, "%s — %s: a wetrun executes only the plan you reviewed\n", BannerRefused, reason)
	if expected != "" {
		fmt.Fprintf(w, "--expect-plan named %s\n", escape.Line(expected))
	}
	fmt.Fprintln(w, "nothing was changed. The plan below is now the preview: run zap apply --wetrun again to execute it if nothing moves, or pass --expect-plan <plan_hash>")
}

// Declined says the question at the terminal wasn't answered with the start
// of the plan's hash.
func Declined(w io.Writer) {
	fmt.Fprintf(w, "%s — the answer was not the first eight characters of this plan's plan_hash\n", BannerDeclined)
	fmt.Fprintln(w, "nothing was changed. The plan below is now the preview: run zap apply --wetrun again to execute it if nothing moves")
}

// ResidualItem is a resource that still doesn't read converged after a
// wetrun acted.
type ResidualItem struct {
	ID      string
	Type    declaration.Kind
	Verdict observation.Verdict
	Reason  string
	Drift   []observation.Difference
}

// Residual lists the resources that still don't read converged.
func Residual(w io.Writer, items []ResidualItem) {
	fmt.Fprintf(w, "%s — %d resource(s) still don't read converged after the run:\n", BannerResidual, len(items))
	for _, it := range items {
		fmt.Fprintf(w, "  %s  %s: %s", escape.Line(it.ID), escape.Line(string(it.Type)), it.Verdict)
		if it.Reason != "" {
			fmt.Fprintf(w, " (%s)", escape.Indent(it.Reason, "    "))
		}
		fmt.Fprintln(w)
		for _, d := range it.Drift {
			Difference(w, d, "    ")
		}
	}
	fmt.Fprintln(w, "the commands ran, but the machine doesn't read as declared: check the resources above")
}

func names(list []string) string {
	out := make([]string, len(list))
	for i, n := range list {
		out[i] = escape.Line(n)
	}
	return strings.Join(out, ", ")
}
