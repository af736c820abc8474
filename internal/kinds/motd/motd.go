// Package motd is a kind that exists to show what adding a kind takes: a
// message of the day, one line of text kept in a file. A test build alone
// carries it (internal/kinds lists it in testonly_on.go, built with the
// zaptest tag, as make testbin builds the stage binaries), and all of it
// is this folder: its wire body (Motd, registered with pkg/declaration),
// its reads, its steps and their wording, its preview lines, its
// operation's script and its tests. The testscript motd_local runs it
// through zap eval, plan and apply.
package motd

import (
	"embed"
	"strings"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/internal/schema"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
	"github.com/zap-go/zap/pkg/plan"
)

// Type is the kind's type in a declaration: zap.motd({id, path, message}).
const Type declaration.Kind = "motd"

// Motd is the kind's body: the file's absolute path and the one line of
// text it holds (a line break follows it in the file).
type Motd struct {
	Path    string `json:"path" zap:"instead=motd"`
	Message string `json:"message" zap:"instead=motd"`
}

// CheckForm: the path is absolute and the message one line, neither
// holding a NUL.
func (m *Motd) CheckForm() *declaration.Finding {
	switch {
	case !strings.HasPrefix(m.Path, "/") || strings.ContainsRune(m.Path, 0):
		return declaration.Fieldf("path", "%q is not an absolute path", m.Path)
	case strings.ContainsAny(m.Message, "\x00\n\r"):
		return declaration.Fieldf("message", "is one line, with no NUL")
	}
	return nil
}

// Texts: a motd takes no reference.
func (m *Motd) Texts(map[string]declaration.Text) {}

// Clone is a copy of m.
func (m *Motd) Clone() declaration.Body {
	c := *m
	return &c
}

//go:embed scripts/*.sh
var scripts embed.FS

// Kind is the motd kind. Setting it registers the body with
// pkg/declaration, so a declaration may hold a motd, and says what the
// evaluator tells a config that writes a reference in a motd's field.
var Kind = func() kind.Kind {
	schema.Instead["motd"] = "a motd is written as declared; write it out"
	declaration.Register(Type, &Motd{})
	return kind.Def[*Motd]{Name: Type, Read: newDetector, Plan: steps, Show: show, As: plan.Login, Ops: scripts}
}()

// OpWrite is the kind's one operation (scripts/motd-write.sh): PATH
// MESSAGE, as the login user.
const OpWrite plan.OpName = "motd-write"

// FieldMessage is the part of a motd's drift: the file holds other text.
const FieldMessage = "message"

// detector reads the file with one probe, as the login user: absent when
// nothing is at the path, converged when it holds the message and a line
// break, drifted when it holds anything else.
type detector struct{ path, message string }

func newDetector(m *Motd, _ detect.Env) detect.Detector {
	return &detector{path: m.Path, message: m.Message}
}

// probe exits 3 when nothing is at the path, else prints the file.
func (d *detector) probe() string {
	p := vocab.Quote(d.path)
	return "if [ ! -e " + p + " ] && [ ! -L " + p + " ]; then exit 3; fi\nexec cat -- " + p
}

func (d *detector) Queries() []detect.Query {
	return []detect.Query{detect.NewProbe(observation.LaneLogin, d.probe())}
}

func (d *detector) Verdict(a []detect.Answer) detect.Result {
	if len(a) != 1 {
		return detect.Holding("want 1 answer for the motd's read")
	}
	if a[0].Status != detect.StatusOK {
		return detect.Holding(detect.Problem(a[0], d.path, vocab.ProbeTimeout))
	}
	switch {
	case a[0].Exit == 3:
		return detect.Absent()
	case a[0].Exit != 0:
		return detect.Holding("reading " + d.path + " failed")
	case a[0].Output == d.message+"\n":
		return detect.Converged()
	}
	return detect.Drifted([]observation.Difference{{Field: FieldMessage, Observed: "differs", Desired: d.message}})
}

// steps: one write, whatever the drift.
func steps(m *Motd, _ kind.Planned) ([]plan.Step, error) {
	return []plan.Step{{Type: plan.StepOp, Op: &plan.Op{Name: OpWrite, Path: declaration.Lit(m.Path), Args: []string{m.Message}, Privilege: plan.Login, Timeout: 30}}}, nil
}

// show is the preview: the path and the message.
func show(m *Motd, _ string) []kind.Line {
	return []kind.Line{{Field: "path", Value: m.Path}, {Field: "message", Value: m.Message}}
}
