package evaluate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/zap-go/zap/pkg/declaration"
)

// What to write instead of a reference, by field, for the kinds beyond
// file, directory, link and script (env.md: a reference where none is taken
// fails naming the resource, the field and what to use instead).
const (
	insteadPackage  = "a package name is written into the manager's command line; write the name out"
	insteadService  = "a service name is written into the manager's command line; write the name out"
	insteadCommand  = "this command is run as written; write it out, or use a script, whose env takes references"
	insteadPin      = "a pin is the blake3 of the bytes; write the 64 hex digits out, or leave it out to track the pin in zap.lock"
	insteadAptPath  = "this path is written into the source line as it is; write it out"
	insteadSource   = "the source line is read by the target's shell with /etc/os-release sourced; use its variables, such as $VERSION_CODENAME"
	insteadURLFixed = "the target fetches this URL as written; write it out"
	insteadSwapPath = "the swap path is a field of an /etc/fstab line; write it out"
	insteadKey      = "a key is installed as written; import keys that differ per environment from a module in the project"
	insteadSudo     = "a sudoers spec is written into the file as declared; write it out"
	insteadEnum     = "write the value out"
	insteadCount    = "write the number out"
	insteadStep     = "a step's fields other than run are written out"
	insteadDeploy   = "the deploy block takes a reference only in health.domain; write the value out"
)

// boolPtr reads an optional boolean.
func (f *fields) boolPtr(key, instead string) *bool {
	return optional(f, key, instead, (*fields).boolean)
}

// intPtr reads an optional whole number.
func (f *fields) intPtr(key, instead string) *int {
	return optional(f, key, instead, (*fields).integer)
}

// optional reads key with read when it is set, nil (the key marked read)
// when it isn't.
func optional[T any](f *fields, key, instead string, read func(f *fields, key, instead string) T) *T {
	if _, ok := f.o.vals[key]; !ok {
		f.ask(key)
		return nil
	}
	v := read(f, key, instead)
	return &v
}

// textPtr reads an optional Text.
func (f *fields) textPtr(key string) *declaration.Text {
	if t, ok := f.text(key, false); ok {
		return &t
	}
	return nil
}

// texts reads a list of Texts.
func (f *fields) texts(key string, required bool) []declaration.Text {
	list, path, ok := f.list(key, required)
	if !ok {
		return nil
	}
	out := make([]declaration.Text, 0, len(list))
	for i, item := range list {
		out = append(out, f.d.text(item, fmt.Sprintf("%s[%d]", path, i)))
	}
	return out
}

// reqStrs reads a required list of strings.
func (f *fields) reqStrs(key, instead string) []string {
	if _, ok := f.get(key, true); !ok {
		return nil
	}
	out := f.strs(key, instead)
	if out == nil {
		out = []string{}
	}
	return out
}

// each reads a list of objects.
func (f *fields) each(key string, required bool, read func(*fields)) {
	v, ok := f.get(key, required)
	if !ok {
		return
	}
	path := child(f.path, key)
	list, ok := v.([]any)
	if !ok {
		f.d.fail(path, "want an array of objects, not %s", typeName(v))
		return
	}
	for i, item := range list {
		o := f.d.fields(item, fmt.Sprintf("%s[%d]", path, i))
		read(o)
		o.done()
	}
}

func readPackage(f *fields, r *declaration.Resource) {
	x := &declaration.Package{}
	r.Body = x
	if o := f.object("from", true); o != nil {
		x.From = map[string]string{}
		for _, k := range o.o.keys {
			x.From[k] = o.str(k, true, insteadPackage)
		}
	}
	if v, ok := f.get("check", false); ok {
		t := f.d.text(v, child(f.path, "check"))
		if t.HasRefs() && !pathCheck(t) {
			f.d.fail(child(f.path, "check"), "takes no reference (zap.env) in a command check: a check beginning /, ~ or $HOME is a path and may hold one; a command is run as written")
		}
		x.Check = &t
	}
}

func pathCheck(t declaration.Text) bool {
	p := t.Parts()[0]
	if p.Env != "" {
		return false
	}
	s := p.Lit
	return len(s) > 0 && (s[0] == '/' || s[0] == '~' || (len(s) >= 5 && s[:5] == "$HOME"))
}

func readAptRepo(f *fields, r *declaration.Resource) {
	x := &declaration.AptRepo{}
	r.Body = x
	x.KeyURL, _ = f.text("key_url", true)
	x.KeyBlake3 = f.str("key_blake3", false, insteadPin)
	x.Source = f.str("source", true, insteadSource)
	x.KeyPath = f.str("key_path", false, insteadAptPath)
	x.ListFile = f.str("list_file", false, "the list file's path is taken as written; write it out")
}

func readInstaller(f *fields, r *declaration.Resource) {
	x := &declaration.Installer{}
	r.Body = x
	x.URL = f.str("url", true, insteadURLFixed)
	x.Check, _ = f.text("check", true)
	x.Shell = f.str("shell", false, "the shell line is shown and run as written; write it out")
}

func readUser(f *fields, r *declaration.Resource) {
	x := &declaration.User{}
	r.Body = x
	x.Username = f.str("username", true, insteadAccount)
	x.Shell = f.str("shell", false, "write the login shell's path out, such as '/bin/bash'")
	x.HomeMode = f.mode("home_mode")
	if o := f.object("ssh_keys", false); o != nil {
		k := &declaration.SSHKeys{}
		k.CopyFrom = o.str("copy_from", false, insteadAccount)
		if _, ok := o.o.vals["keys"]; ok {
			k.Keys = o.reqStrs("keys", insteadKey)
		}
		o.done()
		x.SSHKeys = k
	}
	if v, ok := f.get("sudo", false); ok {
		path := child(f.path, "sudo")
		switch s := v.(type) {
		case bool:
			if s {
				f.d.fail(path, "true grants nothing: write 'nopasswd' or 'password' to grant sudo, or false to remove the grant")
			}
			x.Sudo = &declaration.Sudo{Remove: true}
		case string:
			x.Sudo = &declaration.Sudo{Mode: f.d.str(s, path, insteadEnum)}
		case *object:
			o := f.d.fields(s, path)
			sudo := &declaration.Sudo{Mode: o.str("mode", true, insteadEnum), Commands: o.reqStrs("commands", insteadSudo)}
			o.done()
			x.Sudo = sudo
		default:
			f.d.fail(path, "want 'nopasswd', 'password', false or {mode, commands}, not %s", typeName(v))
		}
	}
	x.Groups = f.strs("groups", insteadAccount)
}

func readService(f *fields, r *declaration.Resource) {
	x := &declaration.Service{}
	r.Body = x
	x.Service = f.str("service", true, insteadService)
	x.Enabled = f.boolPtr("enabled", "write true or false")
	x.Running = f.boolPtr("running", "write true or false")
	x.RestartOn = f.strs("restart_on", insteadIDs)
	x.ReloadOn = f.strs("reload_on", insteadIDs)
}

func readDatabase(f *fields, r *declaration.Resource) {
	x := &declaration.Database{}
	r.Body = x
	x.Engine = f.str("engine", true, "write 'postgresql'")
	x.DatabaseName, _ = f.text("database_name", true)
	x.Username, _ = f.text("username", true)
	if o := f.object("auth", false); o != nil {
		a := &declaration.DatabaseAuth{Hosts: o.texts("hosts", true)}
		if a.Hosts == nil {
			a.Hosts = []declaration.Text{}
		}
		a.Method = o.str("method", false, "write the method out, such as 'scram-sha-256'")
		o.done()
		x.Auth = a
	}
}

func readSwap(f *fields, r *declaration.Resource) {
	x := &declaration.Swap{}
	r.Body = x
	x.Size = f.str("size", true, "write the size out, such as '2G'")
	x.Path = f.str("path", false, insteadSwapPath)
}

func readFirewall(f *fields, r *declaration.Resource) {
	x := &declaration.Firewall{Allow: []declaration.AllowRule{}}
	r.Body = x
	x.Backend = f.str("backend", true, "write 'ufw' or 'nftables'")
	if v, ok := f.get("allow", true); ok {
		path := child(f.path, "allow")
		list, isList := v.([]any)
		if !isList {
			f.d.fail(path, "want an array of rules, not %s", typeName(v))
		}
		for i, item := range list {
			at := fmt.Sprintf("%s[%d]", path, i)
			if s, isStr := item.(string); isStr {
				x.Allow = append(x.Allow, declaration.AllowRule{Profile: f.d.str(s, at, "a profile is a fixed name; write it out")})
				continue
			}
			o := f.d.fields(item, at)
			before := f.d.failures()
			rule := declaration.AllowRule{Port: o.integer("port", insteadCount), Proto: o.str("proto", false, insteadEnum)}
			if _, has := o.o.vals["port"]; !has {
				o.d.fail(child(at, "port"), missing)
			} else if rule.Port == 0 && f.d.failures() == before {
				o.d.fail(child(at, "port"), "a port is 1 to 65535, not 0")
			}
			o.done()
			x.Allow = append(x.Allow, rule)
		}
	}
	x.DefaultIncoming = f.str("default_incoming", false, insteadEnum)
	x.DefaultOutgoing = f.str("default_outgoing", false, insteadEnum)
}

func readVerify(f *fields, r *declaration.Resource) {
	x := &declaration.Verify{Assertions: []declaration.Assertion{}}
	r.Body = x
	f.each("assertions", true, func(o *fields) {
		a := declaration.Assertion{Type: declaration.AssertionType(o.str("type", true, insteadEnum))}
		switch a.Type {
		case declaration.AssertPathExists:
			a.Path = o.str("path", true, "the path is checked as written; write the absolute path out")
			a.FileType = o.str("file_type", false, insteadEnum)
			a.Mode = o.mode("mode")
			a.Owner = o.str("owner", false, insteadAccount)
			a.NotEmpty = o.boolPtr("not_empty", "write true or false")
		case declaration.AssertCommand:
			t, _ := o.text("run", true)
			a.Run = &t
			if _, ok := o.get("expect", false); ok {
				s := o.str("expect", false, "expect is matched as written; write the text out")
				a.Expect = &s
			}
		case "":
		default:
			o.d.fail(child(o.path, "type"), "%q is not an assertion type (want 'path_exists' or 'command')", a.Type)
		}
		x.Assertions = append(x.Assertions, a)
	})
}

func readPipeline(f *fields, r *declaration.Resource) {
	x := &declaration.Pipeline{Steps: []declaration.Step{}}
	r.Body = x
	f.each("steps", true, func(o *fields) {
		s := declaration.Step{ID: o.str("id", true, insteadStep)}
		s.Run, _ = o.text("run", true)
		s.Name = o.str("name", false, insteadName)
		s.Cwd = o.str("cwd", false, insteadStep)
		s.Env = o.textMap("env", "write the variable's name out; a reference goes in its value")
		s.DependsOn = o.strs("depends_on", insteadIDs)
		x.Steps = append(x.Steps, s)
	})
	x.Env = f.textMap("env", "write the variable's name out; a reference goes in its value")
	x.MaxConcurrency = f.intPtr("max_concurrency", insteadCount)
}

func readExtract(o *fields) *declaration.Extract {
	e := o.object("extract", false)
	if e == nil {
		return nil
	}
	x := &declaration.Extract{Type: declaration.ExtractType(e.str("type", true, insteadEnum))}
	switch x.Type {
	case declaration.ExtractNone, declaration.ExtractTarGZ, declaration.ExtractTarXZ, "":
	default:
		e.d.fail(child(e.path, "type"), "%q is not an extract type (want 'none', 'tar.xz' or 'tar.gz')", x.Type)
	}
	x.StripComponents = e.intPtr("strip_components", insteadCount)
	e.done()
	return x
}

func readBuild(f *fields, r *declaration.Resource) {
	x := &declaration.Build{}
	r.Body = x
	if o := f.object("source", true); o != nil {
		s := declaration.Source{Type: o.str("type", true, "write 'remote'")}
		if s.Type != "" && s.Type != "remote" {
			o.d.fail(child(o.path, "type"), "%q is not a source type (want 'remote')", s.Type)
		}
		s.URL, _ = o.text("url", true)
		s.Extract = readExtract(o)
		s.Auth = o.textPtr("auth")
		if v := o.object("verify", false); v != nil {
			s.Verify = &declaration.Verification{
				Scheme:    v.str("scheme", true, "write 'minisign'"),
				PublicKey: v.str("public_key", true, "the public key is pinned in the config; write it out"),
			}
			s.Verify.SignatureURL = v.textPtr("signature_url")
			v.done()
		}
		s.Blake3 = o.str("blake3", false, insteadPin)
		o.done()
		x.Source = s
	}
	x.Run, _ = f.text("run", true)
	x.Output, _ = f.text("output", true)
	x.Cwd = f.str("cwd", false, "cwd is taken as written; write the path out")
	x.Env = f.textMap("env", "write the variable's name out; a reference goes in its value")
}

// readContent reads a file's content source.
func readContent(c *fields) declaration.Content {
	typ := c.str("type", true, "write the content type out, such as 'inline'")
	switch declaration.ContentType(typ) {
	case declaration.ContentInline:
		s := c.str("content", true, "inline content is installed as written; write the text out")
		return declaration.Content{Type: declaration.ContentInline, Inline: &s}
	case declaration.ContentTemplate:
		body := c.str("template", true, "the template body is written out; a reference goes in a variable of vars")
		out := declaration.Content{Type: declaration.ContentTemplate, Template: &body}
		if v, ok := c.get("vars", false); ok {
			path := child(c.path, "vars")
			if s, isStr := v.(string); isStr && hasMarker(s) {
				c.d.fail(path, "takes no reference (zap.env) for the whole map: give each variable its value, which may be a reference")
			} else if o, ok := c.d.objectAt(v, path); ok {
				out.Vars = map[string]declaration.Var{}
				for _, k := range o.o.keys {
					o.used[k] = true
					p := child(path, displayMarkers(k))
					name := o.d.noRef(p, k, "write the variable's name out; a reference goes in its value")
					out.Vars[name] = c.d.templateVar(o.o.vals[k], p)
				}
			}
		}
		if o := c.object("kinds", false); o != nil {
			out.Kinds = map[string]string{}
			for _, k := range o.o.keys {
				out.Kinds[k] = o.str(k, true, "write the kind out, such as 'domain'")
			}
		}
		return out
	case declaration.ContentSource:
		p, _ := c.text("path", true)
		return declaration.Content{Type: declaration.ContentSource, Path: &p}
	case declaration.ContentRemote:
		u, _ := c.text("url", true)
		out := declaration.Content{Type: declaration.ContentRemote, URL: &u}
		out.Extract = readExtract(c)
		out.Auth = c.textPtr("auth")
		out.Blake3 = c.str("blake3", false, insteadPin)
		return out
	case "":
	default:
		c.d.fail(child(c.path, "type"), "%q is not a content type (want 'inline', 'template', 'source' or 'remote')", typ)
	}
	return declaration.Content{}
}

// templateVar reads a template variable's value: a string (which may hold
// references), or any other plain value, written as its compact JSON, which
// takes no reference at any depth.
func (d *decoder) templateVar(v any, path string) declaration.Var {
	if _, ok := v.(string); ok {
		t := d.text(v, path)
		return declaration.Var{Text: &t}
	}
	var buf bytes.Buffer
	if p := writeJSON(&buf, v, path); p != "" {
		d.fail(p, "takes no reference (zap.env): a value that isn't a string is substituted as its JSON; pass the referenced value as a string variable of its own")
		return declaration.Var{}
	}
	return declaration.Var{JSON: buf.Bytes()}
}

// writeJSON writes a plain value as compact JSON, keys in the order the
// config wrote them. It returns the path of a string holding a reference
// marker, or "".
func writeJSON(buf *bytes.Buffer, v any, path string) string {
	switch x := v.(type) {
	case nil, jsonNull:
		buf.WriteString("null")
	case bool:
		buf.WriteString(strconv.FormatBool(x))
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e21 {
			buf.WriteString(strconv.FormatFloat(x, 'f', -1, 64))
		} else {
			buf.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
		}
	case string:
		if hasMarker(x) {
			return path
		}
		b, _ := json.Marshal(x)
		buf.Write(b)
	case []any:
		buf.WriteByte('[')
		for i, item := range x {
			if i > 0 {
				buf.WriteByte(',')
			}
			if p := writeJSON(buf, item, fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
		buf.WriteByte(']')
	case *object:
		buf.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			if hasMarker(k) {
				return child(path, displayMarkers(k))
			}
			b, _ := json.Marshal(k)
			buf.Write(b)
			buf.WriteByte(':')
			if p := writeJSON(buf, x.vals[k], child(path, k)); p != "" {
				return p
			}
		}
		buf.WriteByte('}')
	}
	return ""
}

// readDeploy reads the deploy block.
func readDeploy(f *fields) *declaration.Deploy {
	x := &declaration.Deploy{}
	x.Path = f.str("path", true, insteadDeploy)
	x.Build = f.str("build", false, insteadDeploy)
	x.Artifacts = f.reqStrs("artifacts", insteadDeploy)
	x.Shared = f.strs("shared", insteadDeploy)
	x.Prepare = f.strs("prepare", insteadDeploy)
	x.Service = f.str("service", false, insteadService)
	x.Releases = f.intPtr("releases", insteadCount)
	if h := f.object("health", false); h != nil {
		x.Health = &declaration.Health{}
		x.Health.Domain, _ = h.text("domain", true)
		x.Health.Path = h.str("path", false, insteadDeploy)
		x.Health.Attempts = h.intPtr("attempts", insteadCount)
		x.Health.IntervalMS = h.intPtr("interval_ms", insteadCount)
		h.done()
	}
	return x
}
