package kinds

// A file is a path with content (inline, a template, a source on the
// operator's machine, or fetched), mode, owner and group. Its wire form is
// pkg/declaration/kind_file.go; its reads are detect.File.

import (
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/zap-go/zap/internal/escape"
	"github.com/zap-go/zap/internal/kind"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/plan"
)

// fileSteps: one put, elevated, of the path with its content (inline, with
// its SHA-512) or where the content comes from (the template and its vars,
// or the source path, rendered or read when the step runs), mode, owner,
// group and validate.
func fileSteps(f *declaration.File, _ kind.Planned) ([]plan.Step, error) {
	put := &plan.Op{Name: plan.OpPut, Path: f.Path, Mode: f.Mode, Owner: f.Owner, Group: f.Group, Validate: f.Validate, Privilege: plan.Elevated}
	switch c := f.Content; {
	case c.Type == declaration.ContentInline && c.Inline != nil:
		content := *c.Inline
		sum := sha512.Sum512([]byte(content))
		put.Content, put.SHA512 = &content, hex.EncodeToString(sum[:])
	case c.Type == declaration.ContentTemplate && c.Template != nil, c.Type == declaration.ContentSource && c.Path != nil:
		put.From = &c
	default:
		return nil, errors.New("content: want an inline, template or source content source")
	}
	return []plan.Step{{Type: plan.StepOp, Op: put}}, nil
}

// showFile: the path, its mode, owner and group, the content by its kind
// and digest (a template's vars in their exact form, never a value), the
// validate command and the triggers.
func showFile(f *declaration.File) []kind.Line {
	out := append([]kind.Line{{Field: "path", Value: f.Path.String()}}, perms(f.Mode, f.Owner, f.Group)...)
	switch c := f.Content; {
	case c.Inline != nil:
		out = append(out, kind.Line{Field: "content", Value: "inline, " + Digest(*c.Inline)})
	case c.Type == declaration.ContentTemplate && c.Template != nil:
		out = append(out, kind.Line{Field: "content", Value: "template, " + Digest(*c.Template)})
		names := slices.Sorted(maps.Keys(c.Vars))
		for _, n := range names {
			v, _ := c.Vars[n].MarshalJSON()
			text := escape.Line(n) + " = " + escape.Line(string(v))
			if k, ok := c.Kinds[n]; ok {
				text += " (" + escape.Line(k) + ")"
			}
			out = append(out, kind.Line{Field: "var", Value: text})
		}
	case c.Type == declaration.ContentSource && c.Path != nil:
		out = append(out, kind.Line{Field: "content", Value: "source " + c.Path.String()})
	}
	if f.Validate != nil {
		out = append(out, kind.Line{Field: "validate", Value: f.Validate.String()})
	}
	if len(f.Triggers) > 0 {
		out = append(out, kind.Line{Field: "triggers", Value: strings.Join(f.Triggers, ", ")})
	}
	return out
}

// fileShells: validate, a command.
func fileShells(f *declaration.File) []kind.Shell {
	return []kind.Shell{{Field: "validate", Text: f.Validate, InCommand: true}}
}

// Digest describes text by its length and the start of its SHA-512:
// "15 bytes, sha512 0c7463f032f1dc98…".
func Digest(text string) string {
	sum := sha512.Sum512([]byte(text))
	return fmt.Sprintf("%d bytes, sha512 %s…", len(text), hex.EncodeToString(sum[:])[:16])
}
