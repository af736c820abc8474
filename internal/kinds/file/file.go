// Package file is the file kind: a path with content (inline, a template,
// a source on the operator's machine, a project file's bytes, or fetched
// and pinned, placed whole or extracted), mode, owner and group. Its wire
// form is pkg/declaration/kind_file.go; everything else of it is here: its
// reads (File, RemoteFile and RemoteTree, the detectors, and the text a
// diff of its content shows), its steps, its preview lines, the text of it
// that reaches a shell, the extract operation's script (scripts/, which
// Kind hands internal/ops) and their tests. Its put operations (plan.OpPut,
// plan.OpPutStream) stay with internal/ops, whose put.sh and put-stream.sh
// the build kind's provenance sidecar and the executor share: the
// executor chooses put-stream for content too large to hold, and
// internal/localops, internal/ops/asroot and internal/sshhost perform
// every put. What a file's and a directory's reads and preview share is
// detect.Attrs, detect.Restat and kind.Perms. internal/kinds lists Kind.
package file

import (
	"crypto/sha512"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/zap-go/zap/internal/escape"
	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// steps: one put, elevated, of the path with its content (inline, with
// its SHA-512) or where the content comes from (the template and its vars,
// the source path, a project file's bytes, or the remote content with the
// pin detection compared against, rendered, read, decoded or fetched when
// the step runs), mode, owner,
// group and validate; remote content to extract is one extract instead.
func steps(f *declaration.File, at kind.Planned) ([]plan.Step, error) {
	put := &plan.Op{Name: plan.OpPut, Path: f.Path, Mode: f.Mode, Owner: f.Owner, Group: f.Group, Validate: f.Validate, Privilege: plan.Elevated}
	switch c := f.Content; {
	case c.Type == declaration.ContentRemote && c.URL != nil:
		return remoteSteps(put, c, at.Pin)
	case c.Type == declaration.ContentInline && c.Inline != nil:
		content := *c.Inline
		sum := sha512.Sum512([]byte(content))
		put.Content, put.SHA512 = &content, hex.EncodeToString(sum[:])
	case c.Type == declaration.ContentTemplate && c.Template != nil, c.Type == declaration.ContentSource && c.Path != nil,
		c.Type == declaration.ContentBytes && c.Base64 != nil:
		put.From = &c
	default:
		return nil, errors.New("content: want an inline, template, source, remote or bytes content source")
	}
	return []plan.Step{{Type: plan.StepOp, Op: put}}, nil
}

// show: the path, its mode, owner and group, the content by its kind
// and digest (a template's vars in their exact form, never a value), the
// validate command and the triggers.
func show(f *declaration.File, _ string) []kind.Line {
	out := append([]kind.Line{{Field: "path", Value: f.Path.String()}}, kind.Perms(f.Mode, f.Owner, f.Group)...)
	switch c := f.Content; {
	case c.Inline != nil:
		out = append(out, kind.Line{Field: "content", Value: "inline, " + Digest(*c.Inline)})
	case c.Type == declaration.ContentTemplate && c.Template != nil:
		out = append(out, kind.Line{Field: "content", Value: "template, " + Digest(*c.Template) + templateVars(c)})
	case c.Type == declaration.ContentBytes && c.Base64 != nil:
		b, _ := c.Bytes()
		out = append(out, kind.Line{Field: "content", Value: "bytes, " + Digest(string(b))})
	case c.Type == declaration.ContentSource && c.Path != nil:
		out = append(out, kind.Line{Field: "content", Value: "source " + c.Path.String()})
	case c.Type == declaration.ContentRemote && c.URL != nil:
		out = append(out, showRemote(c)...)
	}
	if f.Content.File != "" {
		out = append(out, kind.Line{Field: "from", Value: "project file " + escape.Line(f.Content.File)})
	}
	if f.Validate != nil {
		out = append(out, kind.Line{Field: "validate", Value: f.Validate.String()})
	}
	if len(f.Triggers) > 0 {
		out = append(out, kind.Line{Field: "triggers", Value: strings.Join(f.Triggers, ", ")})
	}
	return out
}

// templateVars is what follows a template's digest on its content line:
// its vars and, when any is declared, their kinds, each as one JSON
// object, keys sorted, a var in its exact form (a reference as written,
// never its value).
func templateVars(c declaration.Content) string {
	if len(c.Vars) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(", vars {")
	for i, n := range slices.Sorted(maps.Keys(c.Vars)) {
		if i > 0 {
			b.WriteByte(',')
		}
		v, _ := c.Vars[n].MarshalJSON()
		b.WriteString(strconv.Quote(n) + ":" + string(v))
	}
	b.WriteByte('}')
	if len(c.Kinds) > 0 {
		b.WriteString(", kinds {")
		for i, n := range slices.Sorted(maps.Keys(c.Kinds)) {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(n) + ":" + strconv.Quote(c.Kinds[n]))
		}
		b.WriteByte('}')
	}
	return b.String()
}

// shells: validate, a command.
func shells(f *declaration.File) []kind.Shell {
	return []kind.Shell{{Field: "validate", Text: f.Validate, InCommand: true}}
}

// Digest describes text by its length and the start of its SHA-512:
// "15 bytes, sha512 0c7463f032f1dc98…".
func Digest(text string) string {
	sum := sha512.Sum512([]byte(text))
	return fmt.Sprintf("%d bytes, sha512 %s…", len(text), hex.EncodeToString(sum[:])[:16])
}

// remoteSteps: the put of remote content (extract none), or the extract of
// an archive, carrying the content as declared with the pin detection
// compared against in its blake3, so plan_hash covers the pin and the run
// places only bytes that hash to it. The auth credential stays a
// reference: only zap-exec resolves it, when it fetches.
func remoteSteps(put *plan.Op, c declaration.Content, pin string) ([]plan.Step, error) {
	if pin == "" {
		pin = c.Blake3
	}
	if pin == "" {
		return nil, errors.New("content: remote content with no pin to place (detection found none)")
	}
	c.Blake3 = pin
	put.From = &c
	if e := c.Extract; e != nil && e.Type != declaration.ExtractNone {
		// An extract: no validate (refused on remote content); its
		// arguments are the form, the strip count and the provenance its
		// sentinel records.
		strip := 0
		if e.StripComponents != nil {
			strip = *e.StripComponents
		}
		put.Name, put.Validate = plan.OpExtract, nil
		put.Args = []string{string(e.Type), strconv.Itoa(strip), RemoteProvenance(pin, e)}
	}
	return []plan.Step{{Type: plan.StepOp, Op: put}}, nil
}

// showRemote: the url as declared, the vendored pin (a tracked one is
// zap.lock's), the extract form, and whether a credential goes with the
// fetch (by its references, never its value).
func showRemote(c declaration.Content) []kind.Line {
	pin := "tracked in zap.lock"
	if c.Blake3 != "" {
		pin = "blake3 " + c.Blake3
	}
	out := []kind.Line{{Field: "content", Value: "remote " + c.URL.String() + ", " + pin}}
	if e := c.Extract; e != nil && e.Type != declaration.ExtractNone {
		form := string(e.Type)
		if e.StripComponents != nil {
			form += fmt.Sprintf(", strip_components %d", *e.StripComponents)
		}
		out = append(out, kind.Line{Field: "extract", Value: form})
	}
	if c.Auth != nil {
		out = append(out, kind.Line{Field: "auth", Value: "bearer credential " + strings.Join(refNames(*c.Auth), ", ")})
	}
	return out
}

// refNames are t's references as {env:NAME}, or "(literal)" when it has
// none: the value itself is never shown.
func refNames(t declaration.Text) []string {
	var out []string
	for _, n := range t.Refs() {
		out = append(out, "{env:"+n+"}")
	}
	if len(out) == 0 {
		return []string{"(written in the config)"}
	}
	return out
}

//go:embed scripts/*.sh
var scripts embed.FS

// Kind is the file kind: its reads, its steps, its preview, its shell
// text and its script, elevated.
var Kind = kind.Def[*declaration.File]{Name: declaration.KindFile, Read: NewFile, Plan: steps, Show: show, As: plan.Elevated, Shell: shells, Ops: scripts, Doc: doc}
