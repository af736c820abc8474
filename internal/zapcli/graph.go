package zapcli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/zap-go/zap/internal/escape"
	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/pass"
	"github.com/zap-go/zap/internal/render"
	"github.com/zap-go/zap/internal/state"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// dotTimeout bounds how long dot may take to lay a graph out.
const dotTimeout = 2 * time.Minute

// dotStderrMax bounds how much of dot's stderr a failure quotes.
const dotStderrMax = 4 << 10

// graphCommand is zap graph [--svg] [CONFIG].
func (a *app) graphCommand(f *flagSets) *ffcli.Command {
	fs := f.eval("zap graph")
	svg := fs.Bool("svg", false, "lay the graph out as SVG with Graphviz's dot (on PATH) instead of printing DOT")
	return &ffcli.Command{
		Name:       "graph",
		ShortUsage: "zap graph [--svg] [CONFIG]",
		ShortHelp:  "the resources, their edges and the last run's verdicts, as DOT",
		LongHelp: `Evaluates the config and prints its resources as a Graphviz DOT graph on
stdout, offline: one box per resource (id, type and, when the config has a
last run on its target, that run's verdict: converged, drifted, absent, or
held when it couldn't be read), and an arrow from each resource to what
comes after it: solid for depends_on, dashed and labelled for the trigger
edges (a file's triggers, a service's restart_on and reload_on). The same
config and last run give the same bytes.

With --svg the DOT goes through dot -Tsvg (Graphviz, found on PATH) and
the SVG is printed instead; without dot on PATH, zap graph --svg exits 2
saying so.

Exit status: 0 printed; 1 dot failed, or the evaluator crashed; 2 the
config is wrong, dot is missing, or an input error.`,
		FlagSet: fs,
		Exec: onConfig(func(ctx context.Context, config string) error {
			return a.cmdGraph(ctx, config, *svg)
		}),
	}
}

// cmdGraph is zap graph: evaluate, read the last run, print DOT (or SVG).
func (a *app) cmdGraph(ctx context.Context, config string, svg bool) error {
	dot := ""
	if svg {
		p, err := exec.LookPath("dot")
		if err != nil {
			return exit.Fail(2, "zap graph --svg needs Graphviz's dot, and there is no dot on PATH",
				"install Graphviz (Debian: apt-get install graphviz), or drop --svg and pipe the DOT to a renderer")
		}
		dot = p
	}
	_, ev, l, err := a.start(ctx, config, (*pass.Session).CheckHost)
	if err != nil {
		return err
	}
	var last *state.Report
	if l != nil {
		last = l.Report
	}
	var b bytes.Buffer
	graphDOT(&b, ev.Decl, last)
	if !svg {
		_, err := a.stdout.Write(b.Bytes())
		return err
	}
	return a.runDot(ctx, dot, b.Bytes())
}

// runDot lays dotSrc out as SVG with the dot at path, onto stdout, within
// dotTimeout.
func (a *app) runDot(ctx context.Context, path string, dotSrc []byte) error {
	ctx, cancel := context.WithTimeout(ctx, dotTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "-Tsvg")
	cmd.Stdin = bytes.NewReader(dotSrc)
	cmd.Stdout = a.stdout
	stderr := &capped{max: dotStderrMax}
	cmd.Stderr = stderr
	err := cmd.Run()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return exit.Failf(1, "dot -Tsvg took longer than %s, the bound on laying a graph out: stopped", dotTimeout)
	}
	if err != nil {
		msg := fmt.Sprintf("dot -Tsvg: %v", err)
		if s := strings.TrimSpace(stderr.b.String()); s != "" {
			msg += "\n" + escape.Line(s)
		}
		return exit.Fail(1, msg)
	}
	return nil
}

// capped keeps the first max bytes written to it and drops the rest.
type capped struct {
	b   bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.b.Len(); room > 0 {
		c.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// verdictFill is the fill colour of a resource's box by its last verdict.
var verdictFill = map[observation.Verdict]string{
	observation.Converged:    "#c8e6c9",
	observation.Drifted:      "#fff3b0",
	observation.Absent:       "#e0e0e0",
	observation.Undetermined: "#ffcdd2",
}

// verdictWord is how a box names its last verdict.
func verdictWord(v observation.Verdict) string {
	if v == observation.Undetermined {
		return "held (undetermined)"
	}
	return string(v)
}

// graphDOT writes d's resources as DOT, in declaration order: a node per
// resource (with its verdict in last, when there is a last run), then an
// edge per depends_on (solid) and trigger edge (dashed, labelled), each
// drawn from what applies first to what applies after it.
func graphDOT(w io.Writer, d *declaration.Declaration, last *state.Report) {
	target := "local"
	if !d.Target.Local && d.Target.Host != nil {
		target = d.Target.Host.String()
	}
	title := []string{"target: " + target, "no last run"}
	verdicts := map[string]observation.Verdict{}
	if last != nil {
		title[1] = fmt.Sprintf("last run: %s, %s", last.Time, render.CommandName(last.Command))
		for _, r := range last.Resources {
			verdicts[r.ID] = r.Verdict
		}
	}
	fmt.Fprintln(w, "// zap graph: each resource, what applies after it (solid: depends_on;")
	fmt.Fprintln(w, "// dashed: a trigger edge) and its verdict in the last run.")
	fmt.Fprintln(w, "digraph zap {")
	fmt.Fprintf(w, "\tlabel=%s;\n\tlabelloc=t;\n\trankdir=LR;\n\tfontname=\"sans-serif\";\n", dotQuote(title...))
	fmt.Fprintln(w, "\tnode [shape=box, style=\"rounded,filled\", fillcolor=white, fontname=\"sans-serif\"];")
	fmt.Fprintln(w, "\tedge [fontname=\"sans-serif\", fontsize=10];")
	for i := range d.Resources {
		r := &d.Resources[i]
		label := []string{r.ID, string(r.Type)}
		fill := "white"
		if last != nil {
			if v, ok := verdicts[r.ID]; ok {
				label = append(label, verdictWord(v))
				fill = verdictFill[v]
			} else {
				label = append(label, "not read in the last run")
			}
		}
		fmt.Fprintf(w, "\t%s [label=%s, fillcolor=%s];\n", dotQuote(r.ID), dotQuote(label...), dotQuote(fill))
	}
	for i := range d.Resources {
		r := &d.Resources[i]
		for _, dep := range r.DependsOn {
			fmt.Fprintf(w, "\t%s -> %s;\n", dotQuote(dep), dotQuote(r.ID))
		}
		for _, e := range r.TriggerEdges() {
			fmt.Fprintf(w, "\t%s -> %s [style=dashed, label=\"%s\"];\n", dotQuote(e.From), dotQuote(e.To), e.Field)
		}
	}
	fmt.Fprintln(w, "}")
}

// dotQuote is the lines as one DOT string: quoted, each line escaped
// (a quote and a backslash, and every invisible character as escape.Line
// spells it) and the lines joined by DOT's \n line break.
func dotQuote(lines ...string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i, l := range lines {
		if i > 0 {
			b.WriteString(`\n`)
		}
		l = escape.Line(l)
		for j := 0; j < len(l); j++ {
			if l[j] == '"' || l[j] == '\\' {
				b.WriteByte('\\')
			}
			b.WriteByte(l[j])
		}
	}
	b.WriteByte('"')
	return b.String()
}
