package zapcli

import (
	"bytes"
	"flag"
	"strconv"

	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/lockhash"
	"github.com/zap-go/zap/internal/render"
	"github.com/zap-go/zap/pkg/canon"
	"github.com/zap-go/zap/pkg/cliout"
	"github.com/zap-go/zap/pkg/events"
	"github.com/zap-go/zap/pkg/observation"
)

// jsonMode is --json: stdout carries one document (pkg/cliout), an error
// included, or one zap.events/1 stream and nothing else; a wetrun that ends
// before its first event leaves it empty (docs/protocol.md, The front
// end's --json).
type jsonMode struct {
	// format is the document's, "" for the event stream; stream, when
	// set, decides it instead (apply and deploy: --wetrun streams).
	format  string
	stream  func() bool
	command string
	// started: run_started is written; done: the document, or the
	// stream's done event, is.
	started, done bool
}

func (j *jsonMode) streams() bool {
	if j.stream != nil {
		return j.stream()
	}
	return j.format == ""
}

// jsonFlag adds --json to fs: set while the flags are parsed, so an error
// in a flag after it is written as JSON too.
func (f *flagSets) jsonFlag(fs *flag.FlagSet, usage string, m jsonMode) {
	fs.Var(&jsonValue{a: f.a, m: m}, "json", usage)
}

// jsonValue is --json as a boolean flag that sets app.json to its mode; a
// flag.Getter, so what reads the command line (the colour's check) sees it.
type jsonValue struct {
	a *app
	m jsonMode
}

func (v *jsonValue) IsBoolFlag() bool { return true }

func (v *jsonValue) Get() any { return v.a != nil && v.a.json != nil }

func (v *jsonValue) String() string { return strconv.FormatBool(v.a != nil && v.a.json != nil) }

func (v *jsonValue) Set(s string) error {
	on, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	v.a.json = nil
	if on {
		m := v.m
		v.a.json = &m
	}
	return nil
}

// writeDoc writes a --json document on stdout: canonical, masked, one
// line.
func (a *app) writeDoc(doc any) error {
	b, err := cliout.Encode(doc)
	if err != nil {
		return exit.Failf(1, "encode the --json document: %w", err)
	}
	line := bytes.TrimSuffix(b, []byte("\n"))
	if m := maskJSON(a.masker, line); !bytes.Equal(m, line) {
		// Masking a string can only shorten or replace it; the document
		// is written canonical again all the same.
		if c, err := canon.Transform(m); err == nil {
			line = c
		} else {
			line = m
		}
	}
	a.json.done = true
	_, err = a.stdout.Write(append(line, '\n'))
	return err
}

// emit writes one event line on stdout, masked.
func (a *app) emit(e *events.Event) {
	b, err := e.Marshal()
	if err != nil {
		// Every field is a string or a number: this can't happen.
		panic(err)
	}
	switch e.Event {
	case events.RunStarted:
		a.json.started = true
	case events.Done:
		a.json.done = true
	}
	a.stdout.Write(append(maskJSON(a.masker, b), '\n'))
}

// finishJSON writes, under --json, what the command's end is when it wrote
// no document or done event of its own: err as the document's error, or
// as the stream's done once the stream has begun. A wetrun that ends
// before its first event (a refusal, a preflight bail, an error) leaves
// stdout empty: its text report and error went to stderr.
func (a *app) finishJSON(err error) {
	j := a.json
	if j == nil || j.done {
		return
	}
	code, msg, hints := errorOf(err)
	if j.streams() {
		if !j.started {
			return
		}
		for _, h := range hints {
			msg += "\nhint: " + h
		}
		a.emit(&events.Event{Event: events.Done, Exit: &code, Error: msg})
		return
	}
	if code == 0 || msg == "" {
		// Every command writes its document on success; a quiet exit
		// with none is a bug, said as one rather than as an empty result.
		code, msg = max(code, 1), "zap wrote no --json document for this run"
	}
	var doc any
	switch j.format {
	case cliout.PlanFormat:
		doc = &cliout.Plan{Format: j.format, Command: j.command, Exit: code, Error: msg, Hints: hints}
	case cliout.DetectFormat:
		doc = &cliout.Detect{Format: j.format, Exit: code, Error: msg, Hints: hints}
	case cliout.DeployFormat:
		doc = &cliout.Deploy{Format: j.format, Exit: code, Error: msg, Hints: hints}
	default:
		doc = &cliout.Status{Format: j.format, Exit: code, Error: msg, Hints: hints}
	}
	if err := a.writeDoc(doc); err != nil {
		render.Error(a.stderr, err.Error())
	}
}

// errorOf is err's exit code, message and hints, as main prints them
// (internal/exit): a Reported failure, already told, has no message.
func errorOf(err error) (int, string, []string) {
	if err == nil {
		return 0, "", nil
	}
	if exit.IsReported(err) {
		return exit.Code(err), "", nil
	}
	return exit.Code(err), err.Error(), exit.Hints(err)
}

// lockDoc is the lock's standing as a --json document holds it.
func lockDoc(v *render.LockView) *cliout.Lock {
	l := &cliout.Lock{NoLock: v.NoLock, Tracked: v.Tracked}
	if v.Report == nil {
		return l
	}
	l.Tracked = max(l.Tracked, len(v.Report.Tracked))
	for _, s := range append(append([]lockhash.Standing{}, v.Report.Tracked...), v.Report.Orphans...) {
		p := cliout.Pin{ID: s.ID, Kind: s.Kind, Standing: string(s.Class), Unset: s.Unset}
		if s.Entry != nil {
			p.Blake3 = s.Entry.Blake3
		}
		if m := v.Minted; s.Class == lockhash.Missing {
			for i := range m {
				if m[i].ID == s.ID {
					p.Blake3, p.Minted, p.Written = m[i].Blake3, true, v.Written
				}
			}
		}
		l.Pins = append(l.Pins, p)
	}
	return l
}

// verdictsOf is each observed resource's verdict with its type.
func verdictsOf(o *observation.Observations) []cliout.Verdict {
	out := make([]cliout.Verdict, len(o.Resources))
	for i, r := range o.Resources {
		v := cliout.Verdict{ID: r.ID, Type: string(o.Declaration.Resources[i].Type), Verdict: string(r.Verdict), Reason: r.Reason}
		for _, d := range r.Drift {
			v.Drift = append(v.Drift, d.Field)
		}
		out[i] = v
	}
	return out
}
