package evaluate

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/dop251/goja"
	"github.com/zeebo/blake3"

	"github.com/zap-go/zap/pkg/declaration"
)

// Files reads the files of the config's project that project_text,
// project_template and project_bytes (@zap-go/zap/project.ts) name.
type Files interface {
	// Read returns the bytes of the file at rel, a clean path relative to
	// the project's root, and its absolute path; an error names the file
	// and why it can't be read (outside the project, not a regular file,
	// over the bound).
	Read(rel string) (data []byte, abs string, err error)
}

// FileRead is a project file the evaluation read: its absolute path and
// the blake3 of the bytes read, for the eval cache's inputs.
type FileRead struct {
	Path   string
	Blake3 string
}

// projectFileHook is the registered symbol under which the global object
// holds the function project_text, project_template and project_bytes
// call, with the path as the config wrote it and the form wanted.
const projectFileHook = "zap.project_file"

// projectRead is one project file read: its bytes, kept so a second read
// of it gives the same, and so a content naming it can be held to them.
type projectRead struct {
	abs  string
	data []byte
}

// The forms a project file is read as, by the helper that asks.
var projectForms = map[string]string{
	"text":     "project_text",
	"template": "project_template",
	"bytes":    "project_bytes",
}

// installProjectFile defines the hook: a property that can't be written,
// deleted or listed. Each call reads one file (once: a second call gives
// the first read's bytes) and returns the content it makes, with the file
// as a path relative to the project:
//
//	text      {type: 'inline', content, file}
//	template  {type: 'template', template, file}
//	bytes     {type: 'bytes', base64, file}
//
// The path is relative to the module that called the helper, as an import
// is: the innermost frame of the config's code below the helper's own.
func (b *builder) installProjectFile() error {
	hook := b.rt.ToValue(func(call goja.FunctionCall) goja.Value {
		at, module := b.helperCaller()
		label := "project_text"
		if len(call.Arguments) == 2 {
			if f, ok := call.Arguments[1].(goja.String); ok && projectForms[f.String()] != "" {
				label = projectForms[f.String()]
			}
		}
		fail := func(format string, a ...any) {
			b.throw(&Error{Pos: at, Msg: label + fmt.Sprintf(format, a...), Hint: projectFileHint})
		}
		if len(call.Arguments) != 2 {
			fail(" takes one path, such as %s('./motd.txt')", label)
		}
		name, ok := call.Arguments[0].(goja.String)
		if !ok {
			fail(" takes a path, not %s", jsType(call.Arguments[0]))
		}
		form := call.Arguments[1].String()
		if projectForms[form] == "" {
			fail(": %q is not a form (text, template or bytes)", form)
		}
		rel, err := projectPath(module, name.String())
		if err != nil {
			fail("(%q): %v", name.String(), err)
		}
		data, err := b.readProject(rel)
		if err != nil {
			fail("(%q): %v", name.String(), err)
		}
		o := b.rt.NewObject()
		switch form {
		case "text", "template":
			if msg := notText(data); msg != "" {
				fail("(%q): %s is not text: %s; place it byte for byte with project_bytes", name.String(), rel, msg)
			}
			field, typ := "content", declaration.ContentInline
			if form == "template" {
				field, typ = "template", declaration.ContentTemplate
			}
			o.Set("type", string(typ))
			o.Set(field, string(data))
		default:
			o.Set("type", string(declaration.ContentBytes))
			o.Set("base64", base64.StdEncoding.EncodeToString(data))
		}
		o.Set("file", rel)
		return o
	})
	define, err := b.rt.RunString(`(function (f) { Object.defineProperty(globalThis, Symbol.for('` + projectFileHook + `'), {value: f}); })`)
	if err != nil {
		return fmt.Errorf("project file hook: %w", err)
	}
	fn, _ := goja.AssertFunction(define)
	if _, err := fn(goja.Undefined(), hook); err != nil {
		return fmt.Errorf("project file hook: %w", err)
	}
	return nil
}

// projectFileHint is the advice on a project file the config can't read.
const projectFileHint = "name a regular file of the project, relative to the module that names it (as an import is), such as './files/motd.txt'; a project file is read only inside the project, through no symbolic link that leaves it, and up to 4 MiB"

// helperCaller is where in the config the helper that called the hook was
// called, and the module that call is in: the second frame of the config's
// code on the stack (the first is the helper's own).
func (b *builder) helperCaller() (at, module string) {
	frames := b.rt.CaptureCallStack(0, nil)
	var in []goja.StackFrame
	for _, f := range frames {
		if p := f.Position(); p.Filename == b.pos.name && p.Line > 0 {
			in = append(in, f)
		}
	}
	if len(in) == 0 {
		return "", ""
	}
	f := in[min(1, len(in)-1)]
	p := f.Position()
	return b.pos.at(p.Line, p.Column), b.pos.source(p.Line, p.Column)
}

// projectPath is the project file name names, relative to the project's
// root: name is relative to module (a path relative to the project, as
// positions name the project's modules), as an import is.
func projectPath(module, name string) (string, error) {
	switch {
	case strings.ContainsRune(name, 0):
		return "", errors.New("the path holds a NUL byte")
	case !strings.HasPrefix(name, "./") && !strings.HasPrefix(name, "../"):
		return "", errors.New("name the file relative to this module, starting ./ or ../, as an import does")
	case strings.HasPrefix(module, "@zap-go/zap/"):
		return "", errors.New("a module of @zap-go/zap names no project file; call it from the project's own modules")
	case filepath.IsAbs(module):
		return "", fmt.Errorf("called from %s, a module outside the project (a package it links): only the project's own modules name project files", module)
	}
	dir := "."
	if module != "" {
		dir = path.Dir(filepath.ToSlash(module))
	}
	rel := path.Clean(path.Join(dir, name))
	switch {
	case rel == "..", strings.HasPrefix(rel, "../"):
		return "", errors.New("leads outside the project: a config reads only its project's files")
	case rel == ".":
		return "", errors.New("names the project's folder, not a file")
	}
	return rel, nil
}

// readProject reads rel once.
func (b *builder) readProject(rel string) ([]byte, error) {
	if r, ok := b.project[rel]; ok {
		return r.data, nil
	}
	if b.files == nil {
		return nil, errors.New("this evaluation reads no project files")
	}
	data, abs, err := b.files.Read(rel)
	if err != nil {
		return nil, err
	}
	b.project[rel] = projectRead{abs: abs, data: data}
	return data, nil
}

// notText says why data can't be a text content (a JSON string placed as
// it is), or "".
func notText(data []byte) string {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return fmt.Sprintf("a NUL byte at offset %d", i)
	}
	if !utf8.Valid(data) {
		for i := 0; i < len(data); {
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				return fmt.Sprintf("byte 0x%02X at offset %d is not UTF-8", data[i], i)
			}
			i += size
		}
	}
	return ""
}

// checkProjectContent holds a content naming a project file to what the
// evaluation read of that file: a content from a project file is made by
// the helpers, never written or changed by hand. "" when it holds, else
// the field at fault and why.
func (b *builder) checkProjectContent(c *declaration.Content) (field, msg string) {
	if c == nil || c.File == "" {
		return "", ""
	}
	r, ok := b.project[c.File]
	if !ok {
		return "content.file", fmt.Sprintf("%q is no file this evaluation read: content from a project file is made by project_text, project_template or project_bytes, never written by hand", c.File)
	}
	var field2 string
	var same bool
	switch {
	case c.Type == declaration.ContentInline && c.Inline != nil:
		field2, same = "content.content", *c.Inline == string(r.data)
	case c.Type == declaration.ContentTemplate && c.Template != nil:
		field2, same = "content.template", *c.Template == string(r.data)
	case c.Type == declaration.ContentBytes && c.Base64 != nil:
		field2, same = "content.base64", *c.Base64 == base64.StdEncoding.EncodeToString(r.data)
	default:
		return "content.file", fmt.Sprintf("a %s content names no project file", c.Type)
	}
	if !same {
		return field2, fmt.Sprintf("isn't what %s holds: content from a project file is placed as the file holds it; change the file, or use project_template for values", c.File)
	}
	return "", ""
}

// filesRead is the project files read, sorted by path.
func (b *builder) filesRead() []FileRead {
	out := make([]FileRead, 0, len(b.project))
	for _, r := range b.project {
		sum := blake3.Sum256(r.data)
		out = append(out, FileRead{Path: r.abs, Blake3: hex.EncodeToString(sum[:])})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}
