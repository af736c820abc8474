package declaration

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/zap-go/zap/internal/strict"
	"github.com/zap-go/zap/pkg/canon"
)

// Content is where a file's content comes from.
//
// It is read by its Type: only the fields of its type are set.
type Content struct {
	// Where the text comes from: inline, template, source, remote or bytes.
	Type ContentType `json:"type" zap:"instead=content_type,enum=inline|template|source|remote|bytes,refuse=a content type"`
	// The file's bytes, as text. Takes no reference: a per-environment value
	// goes through a template variable.
	Inline *string `json:"content,omitempty" zap:"instead=inline,on=inline,required"`
	// The body. Every {{name}} placeholder needs a variable, and every
	// variable a placeholder.
	Template *string `json:"template,omitempty" zap:"instead=template,on=template,required"`
	// The value of each placeholder. A string takes references; any other
	// value is substituted as its compact JSON and takes none.
	Vars map[string]Var `json:"vars,omitempty" zap:"hook=vars,on=template" ts:"Record<string, JsonValue>"`
	// The kind each named variable's value must render to.
	Kinds map[string]string `json:"kinds,omitempty" zap:"instead=template_kind,on=template" ts:"Record<string, TemplateKind>"`
	// Absolute or under ~, on the target. Takes a reference.
	Path *Text `json:"path,omitempty" zap:"on=source,required"`
	// https:// (http:// only to a loopback host). Takes a reference.
	URL *Text `json:"url,omitempty" zap:"on=remote,required"`
	// How the fetched bytes are unpacked: 'none' takes them as they are.
	Extract *Extract `json:"extract,omitempty" zap:"on=remote"`
	// A bearer token for a private byte host, typically a reference: a
	// secret by this use, resolved at the fetch and never hashed.
	Auth *Text `json:"auth,omitempty" zap:"on=remote"`
	// A vendored pin, 64 lowercase hex; without it the pin is tracked in
	// zap.lock.
	Blake3 string `json:"blake3,omitempty" zap:"instead=pin,on=remote"`
	// A project file's bytes in standard padded base64, placed as they
	// are: what project_bytes gives.
	Base64 *string `json:"base64,omitempty" zap:"instead=project_file,on=bytes,required"`
	// The project file the content was read from when the config was
	// evaluated, relative to the project: what project_text,
	// project_template and project_bytes give, never written by hand. The
	// review names it as the content's source.
	File string `json:"file,omitempty" zap:"instead=project_file,on=inline|template|bytes,required=bytes"`
}

// Extract is how fetched bytes are unpacked.
type Extract struct {
	// none, tar.xz or tar.gz.
	Type ExtractType `json:"type" zap:"instead=enum,enum=none|tar.xz|tar.gz,refuse=an extract type"`
	// How many leading directories of each archive path to drop, as tar's
	// --strip-components; a tar extract only, 0 or more.
	StripComponents *int `json:"strip_components,omitempty" zap:"instead=count"`
}

// Var is a template variable's value: a Text for a string (which may hold
// references), or any other JSON value, substituted as its compact JSON.
type Var struct {
	Text *Text
	JSON json.RawMessage
}

func (c *Content) DecodeField(path string, raw json.RawMessage) error {
	return c.decode(path, raw, false)
}

func (c *Content) DecodeWellFormed(path string, raw json.RawMessage) error {
	return c.decode(path, raw, true)
}

func (c *Content) decode(path string, raw json.RawMessage, wellFormed bool) error {
	f := newFields(path, raw, wellFormed)
	f.Req("type", &c.Type)
	switch {
	case f.Err() != nil:
	case c.Type == ContentInline:
		strict.ReqNew(f, "content", &c.Inline)
		f.Opt("file", &c.File)
	case c.Type == ContentTemplate:
		strict.ReqNew(f, "template", &c.Template)
		f.Opt("vars", strict.MapOf(&c.Vars))
		f.Opt("kinds", &c.Kinds)
		f.Opt("file", &c.File)
	case c.Type == ContentBytes:
		strict.ReqNew(f, "base64", &c.Base64)
		f.Req("file", &c.File)
	case c.Type == ContentSource:
		strict.ReqNew(f, "path", &c.Path)
	case c.Type == ContentRemote:
		strict.ReqNew(f, "url", &c.URL)
		strict.OptNew(f, "extract", &c.Extract)
		strict.OptNew(f, "auth", &c.Auth)
		f.Opt("blake3", &c.Blake3)
	default:
		f.Fail("type", fmt.Errorf("unknown content type %q", c.Type))
	}
	return f.Done()
}

// Bytes are a bytes source's bytes, decoded from its Base64, which must be
// standard base64, padded, with nothing else in it.
func (c *Content) Bytes() ([]byte, error) {
	if c.Base64 == nil {
		return nil, errors.New("no bytes")
	}
	b, err := base64.StdEncoding.Strict().DecodeString(*c.Base64)
	if err != nil || base64.StdEncoding.EncodeToString(b) != *c.Base64 {
		return nil, errors.New("is not standard padded base64")
	}
	return b, nil
}

// CheckProjectFile holds a content source's file to a path relative to the
// project, written cleanly: not blank, not absolute, no . or .. component,
// no empty one, one line and no NUL.
func CheckProjectFile(p string) error {
	switch {
	case p == "":
		return errors.New("is blank")
	case !utf8.ValidString(p):
		return errors.New("is not UTF-8")
	case strings.ContainsRune(p, 0):
		return errors.New("holds a NUL byte")
	case strings.HasPrefix(p, "/"):
		return fmt.Errorf("%q is absolute: a project file is named relative to the project", p)
	}
	if err := oneLine(p); err != nil {
		return err
	}
	for _, part := range strings.Split(p, "/") {
		if part == "" || part == "." || part == ".." {
			return fmt.Errorf("%q is not a clean path inside the project (no empty, . or .. part)", p)
		}
	}
	return nil
}

var placeholderPattern = newPattern(`\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}`)

// checkContent checks a file's content source.
func (f *File) checkContent() *fieldMsg {
	c := f.Content
	if c.File != "" || c.Type == ContentBytes {
		if err := CheckProjectFile(c.File); err != nil {
			return fieldf("content.file", "%v", err)
		}
	}
	switch c.Type {
	case ContentInline:
		if c.Inline == nil {
			return fieldf("content.content", "required field missing")
		}
	case ContentBytes:
		if c.Base64 == nil {
			return fieldf("content.base64", "required field missing")
		}
		if _, err := c.Bytes(); err != nil {
			return fieldf("content.base64", "%v", err)
		}
	case ContentTemplate:
		if c.Template == nil {
			return fieldf("content.template", "required field missing")
		}
		used := map[string]bool{}
		for _, m := range placeholderPattern.FindAllStringSubmatch(*c.Template, -1) {
			name := m[1]
			if !used[name] {
				if _, ok := c.Vars[name]; !ok {
					return fieldf("content.template", "{{%s}} has no variable in vars", name)
				}
			}
			used[name] = true
		}
		for _, name := range slices.Sorted(maps.Keys(c.Vars)) {
			if !used[name] {
				return fieldf("content.vars."+name, "no {{%s}} placeholder in the template uses it", name)
			}
			if v := c.Vars[name]; v.Text != nil && strings.ContainsRune(v.Text.String(), 0) {
				return fieldf("content.vars."+name, "holds a NUL byte")
			}
		}
		for _, name := range slices.Sorted(maps.Keys(c.Kinds)) {
			if _, ok := c.Vars[name]; !ok {
				return fieldf("content.kinds."+name, "names no variable in vars")
			}
			if !slices.Contains(TemplateKinds, c.Kinds[name]) {
				return fieldf("content.kinds."+name, "%q is not a kind (want domain, port, word or quoted)", c.Kinds[name])
			}
			if v := c.Vars[name]; v.Text != nil {
				if s, ok := v.Text.Plain(); ok {
					if err := CheckKind(c.Kinds[name], s); err != nil {
						return fieldf("content.vars."+name, "%v", err)
					}
				}
			} else if err := CheckKind(c.Kinds[name], string(v.JSON)); err != nil {
				return fieldf("content.vars."+name, "%v", err)
			}
		}
	case ContentSource:
		if c.Path == nil {
			return fieldf("content.path", "required field missing")
		}
		if err := checkPath(*c.Path); err != nil {
			return fieldf("content.path", "%v", err)
		}
	case ContentRemote:
		if c.URL == nil {
			return fieldf("content.url", "required field missing")
		}
		if err := checkURL(*c.URL, true); err != nil {
			return fieldf("content.url", "%v", err)
		}
		if m := checkExtract(c.Extract); m != nil {
			return fieldf("content."+m.field, "%s", m.msg)
		}
		if c.Auth != nil && c.Auth.IsZero() {
			return fieldf("content.auth", "is blank")
		}
		if err := checkBlake3(c.Blake3); err != nil {
			return fieldf("content.blake3", "%v", err)
		}
		if f.Validate != nil {
			return fieldf("validate", "is for text config (inline, template, source), not remote content")
		}
	default:
		return fieldf("content.type", "%q is not a content type", c.Type)
	}
	return nil
}

var (
	domainPattern = newPattern(`^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$`)
	portPattern   = newPattern(`^[1-9][0-9]{0,4}$`)
	wordPattern   = newPattern(`^[A-Za-z0-9_.+:/@-]+$`)
)

// CheckKind holds a template variable's rendered value to its kind.
func CheckKind(kind, v string) error {
	ok := false
	switch kind {
	case "domain":
		ok = domainPattern.MatchString(v)
	case "port":
		ok = portPattern.MatchString(v) && len(v) <= 5 && (len(v) < 5 || v <= "65535")
	case "word":
		ok = wordPattern.MatchString(v)
	case "quoted":
		ok = !strings.ContainsAny(v, "'\"\\$`\r\n\x00")
	}
	if !ok {
		return fmt.Errorf("%q doesn't render as a %s", v, kind)
	}
	return nil
}

func (e *Extract) DecodeField(path string, raw json.RawMessage) error {
	f := strict.NewFields(path, raw)
	f.Req("type", &e.Type)
	switch {
	case f.Err() != nil:
	case e.Type == ExtractNone, e.Type == ExtractTarGZ, e.Type == ExtractTarXZ:
	default:
		f.Fail("type", fmt.Errorf("unknown extract type %q (want none, tar.xz or tar.gz)", e.Type))
	}
	f.Opt("strip_components", &e.StripComponents)
	return f.Done()
}

func (v *Var) DecodeField(path string, raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		v.Text = new(Text)
		return v.Text.DecodeField(path, raw)
	}
	if len(raw) > 0 && raw[0] == '{' {
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) == nil {
			_, env := obj["$env"]
			_, text := obj["$text"]
			if env || text {
				v.Text = new(Text)
				return v.Text.DecodeField(path, raw)
			}
		}
	}
	if p := reservedKey(raw, path); p != "" {
		return &canon.PathError{Path: p, Msg: "a value that isn't a string takes no reference at any depth; pass the referenced value as a string variable of its own"}
	}
	v.JSON = append(json.RawMessage(nil), raw...)
	return nil
}

// reservedKey returns the path of the first $env or $text key inside raw, or
// "".
func reservedKey(raw json.RawMessage, path string) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	var walk func(v any, path string) string
	walk = func(v any, path string) string {
		switch x := v.(type) {
		case map[string]any:
			keys := slices.Sorted(maps.Keys(x))
			for _, k := range keys {
				if k == "$env" || k == "$text" {
					return path + "." + k
				}
				if p := walk(x[k], path+"."+k); p != "" {
					return p
				}
			}
		case []any:
			for i, item := range x {
				if p := walk(item, fmt.Sprintf("%s[%d]", path, i)); p != "" {
					return p
				}
			}
		}
		return ""
	}
	return walk(v, path)
}

func (v Var) MarshalJSON() ([]byte, error) {
	if v.Text != nil {
		return v.Text.MarshalJSON()
	}
	if v.JSON == nil {
		return []byte("null"), nil
	}
	return v.JSON, nil
}

// UnmarshalJSON decodes a content source strictly.
func (c *Content) UnmarshalJSON(data []byte) error { return c.DecodeField("", data) }

// UnmarshalJSON decodes strictly; DecodeField does the work.
func (e *Extract) UnmarshalJSON(data []byte) error { return e.DecodeField("", data) }

// UnmarshalJSON decodes strictly; DecodeField does the work.
func (v *Var) UnmarshalJSON(data []byte) error { return v.DecodeField("", data) }

// clone returns a copy of c sharing no map or pointer with it.
func (c Content) clone() Content {
	c.Inline, c.Template = clonePtr(c.Inline), clonePtr(c.Template)
	if c.Vars != nil {
		vars := make(map[string]Var, len(c.Vars))
		for k, v := range c.Vars {
			vars[k] = Var{Text: clonePtr(v.Text), JSON: bytes.Clone(v.JSON)}
		}
		c.Vars = vars
	}
	c.Kinds = maps.Clone(c.Kinds)
	c.Path, c.URL, c.Auth = clonePtr(c.Path), clonePtr(c.URL), clonePtr(c.Auth)
	c.Base64 = clonePtr(c.Base64)
	c.Extract = c.Extract.clone()
	return c
}

// clone returns a copy of e sharing no pointer with it, or nil.
func (e *Extract) clone() *Extract {
	c := clonePtr(e)
	if c != nil {
		c.StripComponents = clonePtr(e.StripComponents)
	}
	return c
}
