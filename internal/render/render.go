// Package render writes Zap's text reports: the plan (zap plan, zap apply),
// the banners that lead a report, the detection list (zap detect), the
// last-run status (zap status), a wetrun's progress and error messages.
//
// Every function is a pure function of the documents it is given, writing to
// an io.Writer. Every value taken from the config, the environment or the
// target goes through internal/escape, so control and invisible characters
// print as <U+XXXX> and a block of text keeps its lines, each indented under
// its first.
//
// A plan renders as:
//
//	UNDETERMINED — 1 resource(s) could not be read      (banners, when any)
//	  ...
//
//	target: local
//	user: alice
//	home: /home/alice
//	references:
//	  APP_DIR = /srv/app
//	  API_TOKEN (secret)
//
//	[+] demo  directory
//	    path: ~/zap-demo
//	    = dir ~/zap-demo (as alice)
//	[~] hello  file
//	    path: ~/zap-demo/hello.txt
//	    content: inline, 15 bytes, sha512 0c7463f032f1dc98…
//	    ~ content: differs → inline (15 bytes)           (--diff)
//	    = put ~/zap-demo/hello.txt (mode 644, as alice)
//
//	Plan: 2 change(s)
//	plan_hash: <64 hex>
//
// A remote plan's header names the host as declared, what a referenced host
// resolved to, and the connecting user (home: only when declared):
//
//	target: {env:HOST}
//	host: 203.0.113.7
//	user: deploy                 (or: user: (none — ssh chooses))
//
// and over SSH every file operation runs as root.
//
// [+] is a create and [~] an update; the lines under a change say what it
// declares, then its steps: > a command run as written, = one of Zap's own
// operations named with what it acts on (a package, service or ufw
// operation as the commands its script runs, each under an explicit sudo:
// "= sudo systemctl enable -- chrony"), # a note never run as written. A
// change of Zap's own (type zap: the index refresh in front of a batch of
// installs) declares nothing:
//
//	[+] cache-update-apt  zap
//	    = sudo apt-get update -q -o DPkg::Lock::Timeout=120
package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/zap-go/zap/internal/escape"
	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/kinds"
	"github.com/zap-go/zap/internal/ops/opcmd"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// Mode is the command a plan is rendered for; it decides the closing lines.
type Mode string

// The modes.
const (
	ModePlan    Mode = "plan"    // zap plan: reports
	ModeApply   Mode = "apply"   // a dry zap apply: judges
	ModeWetrun  Mode = "wetrun"  // the plan a wetrun executes
	ModeRefused Mode = "refused" // the plan a wetrun refused or was declined
)

// PlanOptions says how to render a plan.
type PlanOptions struct {
	Mode Mode
	// Diff adds a drifted resource's ~ field: observed → desired lines
	// above its steps.
	Diff bool
	// Diffs are the content diffs zap-detect --diff made, by resource id
	// (ContentDiffs): each is written under its change's ~ lines, before
	// its steps.
	Diffs map[string]string
	// Unbindable names the secret references the target's host or
	// connecting user goes through: the plan is shown with no plan_hash,
	// under the UNBINDABLE note.
	Unbindable []string
	// Unrecorded names the secret references the target's host goes
	// through: the UNRECORDED note says no last-run report is kept.
	Unrecorded []string
	// TargetHints are hint lines written under the header: a field the
	// target lacks that held resources need (add home: ... to zap.target).
	TargetHints []string
}

// Plan writes the whole plan: the banners for what the pass couldn't
// establish, the header, every change and the closing lines.
func Plan(w io.Writer, p *plan.Plan, o PlanOptions) {
	if Banners(w, p.Held, p.Unresolved, p.Context) {
		fmt.Fprintln(w)
	}
	if Warnings(w, p.Warnings) {
		fmt.Fprintln(w)
	}
	Header(w, p.Target, p.Context, p.References)
	for _, h := range o.TargetHints {
		fmt.Fprintf(w, "hint: %s\n", escape.Line(h))
	}
	fmt.Fprintln(w)
	for i := range p.Changes {
		Change(w, p, &p.Changes[i], o.Diff, o.Diffs[p.Changes[i].ID])
	}
	if len(p.Changes) > 0 {
		fmt.Fprintln(w)
	}
	switch {
	case len(p.Changes) == 0 && len(p.Held) == 0 && len(p.Unresolved) == 0:
		fmt.Fprintln(w, "(no changes — converged)")
	case len(p.Changes) == 0:
		fmt.Fprintln(w, "(no changes, but not converged: see the banner above)")
	default:
		fmt.Fprintf(w, "Plan: %d change(s)\n", len(p.Changes))
		if o.Mode == ModeApply && len(o.Unbindable) == 0 {
			fmt.Fprintln(w, "dry run: nothing was changed; zap apply --wetrun executes this plan")
		}
	}
	if len(o.Unbindable) > 0 {
		fmt.Fprintln(w)
		Unbindable(w, o.Unbindable)
	} else {
		fmt.Fprintf(w, "plan_hash: %s\n", p.Hash)
	}
	if len(o.Unrecorded) > 0 {
		fmt.Fprintln(w)
		Unrecorded(w, o.Unrecorded)
	}
}

// Header writes the lines naming the machine and environment a pass is for,
// then the references block. A local target: target: local, the user Zap
// runs as and its home. A remote one: target: the host as declared ({env:X}
// for a reference), host: what it resolved to when the declared host is a
// reference, user: the connecting user (marked as the bootstrap_user under
// --bootstrap) or "(none — ssh chooses)", and home:
// only when the target declares one.
func Header(w io.Writer, t declaration.Target, c observation.Context, refs []observation.Reference) {
	if t.Local || t.Host == nil {
		fmt.Fprintf(w, "target: %s\n", escape.Line(c.Target))
		if c.User != "" {
			fmt.Fprintf(w, "user: %s\n", escape.Line(c.User))
		}
		if c.Home != "" {
			fmt.Fprintf(w, "home: %s\n", escape.Line(c.Home))
		}
	} else {
		fmt.Fprintf(w, "target: %s\n", escape.Line(t.Host.String()))
		if t.Host.HasRefs() {
			fmt.Fprintf(w, "host: %s\n", escape.Line(c.Target))
		}
		switch {
		case c.Bootstrap && c.User != "":
			fmt.Fprintf(w, "user: %s (the bootstrap_user: --bootstrap)\n", escape.Line(c.User))
		case c.User != "":
			fmt.Fprintf(w, "user: %s\n", escape.Line(c.User))
		default:
			fmt.Fprintln(w, "user: (none — ssh chooses)")
		}
		if t.Home != "" {
			fmt.Fprintf(w, "home: %s\n", escape.Line(t.Home))
		}
	}
	if len(refs) > 0 {
		fmt.Fprintln(w, "references:")
		for _, r := range refs {
			if r.Secret {
				fmt.Fprintf(w, "  %s (secret)\n", escape.Line(r.Name))
			} else {
				fmt.Fprintf(w, "  %s = %s\n", escape.Line(r.Name), escape.Indent(r.Value, "    "))
			}
		}
	}
}

// Change writes one change: its [+] or [~] line, what it declares, its
// drift (with diff), its content's diff (content, "" for none) and its
// steps.
func Change(w io.Writer, p *plan.Plan, c *plan.Change, diff bool, content string) {
	mark := "[+]"
	if c.Action == plan.Update {
		mark = "[~]"
	}
	fmt.Fprintf(w, "%s %s  %s\n", mark, escape.Line(c.ID), escape.Line(string(c.Type)))
	Declared(w, &c.Resource, "    ")
	Trigger(w, c.Trigger, "    ")
	if diff {
		for _, d := range c.Drift {
			Difference(w, d, "    ")
		}
	}
	if content != "" {
		ContentDiff(w, content, "    ")
	}
	for i, s := range c.Steps {
		// A verify's step shows as the assertion it checks.
		if as := c.Resource.Assertions(); i < len(as) {
			Assertion(w, as[i], "    ")
			continue
		}
		if s.Op != nil && s.Op.Content != nil {
			// A put's content is described by its file's content: line
			// and covered by plan_hash; the preview never prints its bytes.
			op := *s.Op
			op.Content = nil
			s.Op = &op
		}
		Step(w, p.Context, s, "    ")
	}
}

// Difference writes one drifted attribute: ~ field: observed → desired.
func Difference(w io.Writer, d observation.Difference, indent string) {
	fmt.Fprintf(w, "%s~ %s: %s → %s\n", indent, escape.Line(d.Field),
		escape.Indent(d.Observed, indent+"    "), escape.Indent(d.Desired, indent+"    "))
}

// ContentDiff writes a file's content diff (internal/textdiff) at indent,
// each line escaped: a unified diff as it is, any other line that stands
// for one (binary or large, withheld, not shown) after "diff: ".
func ContentDiff(w io.Writer, d string, indent string) {
	lines := strings.Split(strings.TrimSuffix(d, "\n"), "\n")
	if !strings.HasPrefix(d, "--- ") {
		fmt.Fprintf(w, "%sdiff: %s\n", indent, escape.Line(lines[0]))
		lines = lines[1:]
	}
	for _, l := range lines {
		fmt.Fprintf(w, "%s%s\n", indent, escape.Line(l))
	}
}

// ContentDiffs are the content diffs of a pass's observations, by
// resource id (zap-detect --diff); nil when there are none.
func ContentDiffs(o *observation.Observations) map[string]string {
	var out map[string]string
	for _, r := range o.Resources {
		if r.Diff == "" {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[r.ID] = r.Diff
	}
	return out
}

// Declared writes what a resource declares, one field a line, each at
// indent; multi-line values continue indented under their first line.
func Declared(w io.Writer, r *declaration.Resource, indent string) {
	line := func(field, value string) {
		fmt.Fprintf(w, "%s%s: %s\n", indent, field, escape.Indent(value, indent+"  "))
	}
	if r.Name != "" {
		line("name", r.Name)
	}
	for _, l := range kinds.Of(r).Declared(r) {
		line(l.Field, l.Value)
	}
}

// Assertion writes a verify assertion as the # step that checks it: what
// it asks, never the command Zap wraps it in. A command prints whole, its
// expected text on a line of its own.
func Assertion(w io.Writer, a declaration.Assertion, indent string) {
	if a.Type != declaration.AssertCommand || a.Run == nil {
		fmt.Fprintf(w, "%s# %s\n", indent, escape.Line(a.Describe()))
		return
	}
	fmt.Fprintf(w, "%s# command %s\n", indent, escape.Indent(a.Run.String(), indent+"  "))
	if a.Expect != nil {
		fmt.Fprintf(w, "%s  stdout contains: %s\n", indent, escape.Indent(*a.Expect, indent+"    "))
	}
}

// Step writes one step at indent: its mark, what it does, and under it any
// text it carries.
func Step(w io.Writer, c observation.Context, s plan.Step, indent string) {
	switch {
	case s.Command != nil:
		fmt.Fprintf(w, "%s> %s\n", indent, escape.Indent(s.Command.Run.String(), indent+"  "))
	case s.Note != "":
		fmt.Fprintf(w, "%s# %s\n", indent, escape.Indent(s.Note, indent+"  "))
	case s.Op != nil:
		fmt.Fprintf(w, "%s= %s\n", indent, OpSummary(c, s.Op))
		if s.Op.Name == plan.OpPut && s.Op.Content != nil {
			text(w, *s.Op.Content, indent)
		}
		if b, ok := kinds.BodyOf(s.Op); ok && b.Field == "line" {
			fmt.Fprintf(w, "%s  line: %s\n", indent, escape.Indent(b.Text, indent+"    "))
		} else if ok {
			text(w, b.Text, indent)
		}
	}
}

// text writes a file's text under its step: its length and digest, then
// the text whole, less its final newline, each line escaped.
func text(w io.Writer, t string, indent string) {
	fmt.Fprintf(w, "%s  text: %s\n", indent, kinds.Digest(t))
	if t != "" {
		for _, l := range escape.Block(t) {
			fmt.Fprintf(w, "%s    %s\n", indent, l)
		}
	}
}

// OpSummary names one of Zap's own operations with what it acts on, the way
// a plan and a failure report both say it: "put ~/x (mode 644, as alice)".
func OpSummary(c observation.Context, op *plan.Op) string {
	remote := c.Target != "local"
	sudo := opcmd.Sudo(op.Privilege, remote)
	if w, ok := opcmd.Word(op); ok && !w.Assertion {
		// Its own words, the same as execute.Summary's: a package, service
		// or ufw operation as the commands its script runs, each under an
		// explicit sudo, so the line reads the same for a root login and a
		// sudoer (targets.md); another that runs as root under its sudo.
		line := escape.Line(w.Text)
		switch {
		case w.As && sudo:
			line = "sudo " + line
		case w.As:
			line += " (as " + Account(c, op.Privilege) + ")"
		}
		return line
	}
	switch op.Name {
	case plan.OpPut, plan.OpDir, plan.OpLink, plan.OpExtract:
	default:
		// Another operation: its name, its path and its arguments, as
		// execute.Summary says them, under its sudo when it runs as root.
		words := []string{escape.Line(string(op.Name))}
		if !op.Path.IsZero() {
			words = append(words, escape.Line(op.Path.String()))
		}
		args := op.Written()
		if b, ok := kinds.BodyOf(op); ok && b.Args <= len(args) {
			// What its body shows under it (Step) isn't said here too.
			args = args[:len(args)-b.Args]
		}
		for _, a := range args {
			words = append(words, escape.Line(a))
		}
		if sudo {
			return "sudo " + strings.Join(words, " ")
		}
		return strings.Join(words, " ") + " (as " + Account(c, op.Privilege) + ")"
	}
	var paren []string
	if op.Mode != "" {
		paren = append(paren, "mode "+escape.Line(op.Mode))
	} else if op.Name == plan.OpPut {
		paren = append(paren, "mode not managed")
	}
	if op.Owner != "" {
		paren = append(paren, "owner "+escape.Line(op.Owner))
	}
	if op.Group != "" {
		paren = append(paren, "group "+escape.Line(op.Group))
	}
	paren = append(paren, opcmd.FileWho(op.Name, op.Privilege, remote, op.Owner != "", Account(c, op.Privilege))...)
	if op.Validate != nil {
		paren = append(paren, "checked by "+escape.Line(op.Validate.String()))
	}
	if from := op.FetchedFrom(); from != "" {
		paren = append(paren, escape.Line(from))
	}
	if op.Content != nil && *op.Content != "" && !strings.HasSuffix(*op.Content, "\n") {
		paren = append(paren, "no final newline")
	}
	path := escape.Line(op.Path.String())
	switch op.Name {
	case plan.OpLink:
		target := ""
		if op.Target != nil {
			target = escape.Line(op.Target.String())
		}
		return fmt.Sprintf("link %s -> %s (%s)", path, target, strings.Join(paren, ", "))
	default:
		return fmt.Sprintf("%s %s (%s)", escape.Line(string(op.Name)), path, strings.Join(paren, ", "))
	}
}

// Account is who a step runs as.
func Account(c observation.Context, p plan.Privilege) string {
	switch {
	case p == plan.Root:
		return "root"
	case p == plan.Elevated && c.Target != "local":
		return "root"
	case c.User != "":
		return escape.Line(c.User)
	}
	return "the connecting user"
}

// Error writes zap's failure in the voice every Zap binary speaks
// (exit.Write): "error: " and the message, its further lines indented under
// it, then any hints at the left margin.
func Error(w io.Writer, msg string, hints ...string) { exit.Write(w, "error", msg, hints...) }
