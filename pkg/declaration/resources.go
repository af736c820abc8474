package declaration

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/zap-go/zap/pkg/canon"
)

// Package is an OS package installed through the target's package manager.
type Package struct {
	// From maps a package manager (apt, apk, pacman, brew) to the package's
	// name there.
	From map[string]string `json:"from"`
	// Check is a path tested for existence (it begins with /, ~ or $HOME
	// and may hold references) or a command run as written (no reference).
	Check *Text `json:"check,omitempty"`
}

// AptRepo is an apt repository: a pinned signing key and a sources entry.
type AptRepo struct {
	KeyURL    Text   `json:"key_url"`
	KeyBlake3 string `json:"key_blake3,omitempty"`
	Source    string `json:"source"`
	KeyPath   string `json:"key_path,omitempty"`
	ListFile  string `json:"list_file,omitempty"`
}

// Installer is a downloaded script piped into a shell, gated by a path.
type Installer struct {
	URL   string `json:"url"`
	Check Text   `json:"check"`
	Shell string `json:"shell,omitempty"`
}

// User is a Unix account.
type User struct {
	Username string   `json:"username"`
	Shell    string   `json:"shell,omitempty"`
	HomeMode string   `json:"home_mode,omitempty"`
	SSHKeys  *SSHKeys `json:"ssh_keys,omitempty"`
	Sudo     *Sudo    `json:"sudo,omitempty"`
	Groups   []string `json:"groups,omitempty"`
}

// SSHKeys is a user's authorized_keys: copied from another account, or the
// listed keys. Exactly one is set in a valid declaration.
type SSHKeys struct {
	CopyFrom string   `json:"copy_from,omitempty"`
	Keys     []string `json:"keys,omitempty"`
}

// Sudo is a user's sudo grant. Its JSON is false (Remove), "nopasswd" or
// "password" (every command), or {"mode": ..., "commands": [...]}.
type Sudo struct {
	Remove   bool
	Mode     string
	Commands []string
}

// Service is a service managed through the target's service manager.
type Service struct {
	Service   string   `json:"service"`
	Enabled   *bool    `json:"enabled,omitempty"`
	Running   *bool    `json:"running,omitempty"`
	RestartOn []string `json:"restart_on,omitempty"`
	ReloadOn  []string `json:"reload_on,omitempty"`
}

// Database is a PostgreSQL database and its owning role.
type Database struct {
	Engine       string        `json:"engine"`
	DatabaseName Text          `json:"database_name"`
	Username     Text          `json:"username"`
	Auth         *DatabaseAuth `json:"auth,omitempty"`
}

// DatabaseAuth is the pg_hba.conf rules of a database.
type DatabaseAuth struct {
	Hosts  []Text `json:"hosts"`
	Method string `json:"method,omitempty"`
}

// Swap is a swap file recorded in /etc/fstab.
type Swap struct {
	Size string `json:"size"`
	Path string `json:"path,omitempty"`
}

// Firewall is the default policies and allow rules of ufw or nftables.
type Firewall struct {
	Backend         string      `json:"backend"`
	Allow           []AllowRule `json:"allow"`
	DefaultIncoming string      `json:"default_incoming,omitempty"`
	DefaultOutgoing string      `json:"default_outgoing,omitempty"`
}

// AllowRule is a named ufw profile (its JSON a string) or a port rule
// ({"port": N, "proto": ...}).
type AllowRule struct {
	Profile string
	Port    int
	Proto   string
}

// Verify is a list of assertions checked at detection and on a wetrun.
type Verify struct {
	Assertions []Assertion `json:"assertions"`
}

// Assertion is one check of a verify, selected by Type.
type Assertion struct {
	Type AssertionType `json:"type"`
	// path_exists
	Path     string `json:"path,omitempty"`
	FileType string `json:"file_type,omitempty"`
	Mode     string `json:"mode,omitempty"`
	Owner    string `json:"owner,omitempty"`
	NotEmpty *bool  `json:"not_empty,omitempty"`
	// command
	Run    *Text   `json:"run,omitempty"`
	Expect *string `json:"expect,omitempty"`
}

// Pipeline is an ordered list of steps run on every wetrun. Env,
// MaxConcurrency above 1 and a step's Cwd, Env and DependsOn decode so that
// the structural gate can refuse them by name: the executor doesn't run them.
type Pipeline struct {
	Steps          []Step          `json:"steps"`
	Env            map[string]Text `json:"env,omitempty"`
	MaxConcurrency *int            `json:"max_concurrency,omitempty"`
}

// Step is one step of a pipeline.
type Step struct {
	ID        string          `json:"id"`
	Run       Text            `json:"run"`
	Name      string          `json:"name,omitempty"`
	Cwd       string          `json:"cwd,omitempty"`
	Env       map[string]Text `json:"env,omitempty"`
	DependsOn []string        `json:"depends_on,omitempty"`
}

// Build is a tool built from a fetched, pinned source archive.
type Build struct {
	Source Source          `json:"source"`
	Run    Text            `json:"run"`
	Output Text            `json:"output"`
	Cwd    string          `json:"cwd,omitempty"`
	Env    map[string]Text `json:"env,omitempty"`
}

// Source is a build's remote source archive.
type Source struct {
	Type    string        `json:"type"`
	URL     Text          `json:"url"`
	Extract *Extract      `json:"extract,omitempty"`
	Auth    *Text         `json:"auth,omitempty"`
	Verify  *Verification `json:"verify,omitempty"`
	Blake3  string        `json:"blake3,omitempty"`
}

// Extract is how fetched bytes are unpacked.
type Extract struct {
	Type            ExtractType `json:"type"`
	StripComponents *int        `json:"strip_components,omitempty"`
}

// Verification is an upstream signature check of a build source.
type Verification struct {
	Scheme       string `json:"scheme"`
	PublicKey    string `json:"public_key"`
	SignatureURL *Text  `json:"signature_url,omitempty"`
}

// Var is a template variable's value: a Text for a string (which may hold
// references), or any other JSON value, substituted as its compact JSON.
type Var struct {
	Text *Text
	JSON json.RawMessage
}

// Deploy is the deploy block: where and how zap deploy ships a release.
type Deploy struct {
	Path      string   `json:"path"`
	Build     string   `json:"build,omitempty"`
	Artifacts []string `json:"artifacts"`
	Shared    []string `json:"shared,omitempty"`
	Prepare   []string `json:"prepare,omitempty"`
	Service   string   `json:"service,omitempty"`
	Releases  *int     `json:"releases,omitempty"`
	Health    *Health  `json:"health,omitempty"`
}

// Health is a deploy's health gate.
type Health struct {
	Domain     Text   `json:"domain"`
	Path       string `json:"path,omitempty"`
	Attempts   *int   `json:"attempts,omitempty"`
	IntervalMS *int   `json:"interval_ms,omitempty"`
}

// optText decodes key into a new Text when it is present.
func optText(f *Fields, key string, p **Text) {
	if f.Has(key) {
		*p = new(Text)
		f.Opt(key, TextField(*p))
	}
}

// textList decodes a list of Texts.
func textList(f *Fields, key string, required bool, out *[]Text) {
	list := []Text{}
	f.List(key, required, func(path string, raw json.RawMessage) error {
		var t Text
		if err := t.UnmarshalJSON(raw); err != nil {
			return &canon.PathError{Path: path, Msg: err.Error()}
		}
		list = append(list, t)
		return nil
	})
	if f.Has(key) {
		*out = list
	}
}

// decodeKind reads the fields of the kinds other than file, directory, link
// and script. It reports false for a type it doesn't know.
func (r *Resource) decodeKind(f *Fields) bool {
	switch r.Type {
	case KindPackage:
		x := &Package{}
		r.Package = x
		f.Req("from", &x.From)
		optText(f, "check", &x.Check)
	case KindAptRepo:
		x := &AptRepo{}
		r.AptRepo = x
		f.Req("key_url", TextField(&x.KeyURL))
		f.Opt("key_blake3", &x.KeyBlake3)
		f.Req("source", &x.Source)
		f.Opt("key_path", &x.KeyPath)
		f.Opt("list_file", &x.ListFile)
	case KindInstaller:
		x := &Installer{}
		r.Installer = x
		f.Req("url", &x.URL)
		f.Req("check", TextField(&x.Check))
		f.Opt("shell", &x.Shell)
	case KindUser:
		x := &User{}
		r.User = x
		f.Req("username", &x.Username)
		f.Opt("shell", &x.Shell)
		f.Opt("home_mode", &x.HomeMode)
		if f.Has("ssh_keys") {
			x.SSHKeys = &SSHKeys{}
			f.Opt("ssh_keys", x.SSHKeys)
		}
		if f.Has("sudo") {
			x.Sudo = &Sudo{}
			f.Opt("sudo", x.Sudo)
		}
		f.Opt("groups", &x.Groups)
	case KindService:
		x := &Service{}
		r.Service = x
		f.Req("service", &x.Service)
		f.Opt("enabled", &x.Enabled)
		f.Opt("running", &x.Running)
		f.Opt("restart_on", &x.RestartOn)
		f.Opt("reload_on", &x.ReloadOn)
	case KindDatabase:
		x := &Database{}
		r.Database = x
		f.Req("engine", &x.Engine)
		f.Req("database_name", TextField(&x.DatabaseName))
		f.Req("username", TextField(&x.Username))
		if f.Has("auth") {
			x.Auth = &DatabaseAuth{}
			f.Opt("auth", x.Auth)
		}
	case KindSwap:
		x := &Swap{}
		r.Swap = x
		f.Req("size", &x.Size)
		f.Opt("path", &x.Path)
	case KindFirewall:
		x := &Firewall{}
		r.Firewall = x
		f.Req("backend", &x.Backend)
		x.Allow = []AllowRule{}
		f.List("allow", true, func(path string, raw json.RawMessage) error {
			var a AllowRule
			if err := a.DecodeField(path, raw); err != nil {
				return err
			}
			x.Allow = append(x.Allow, a)
			return nil
		})
		f.Opt("default_incoming", &x.DefaultIncoming)
		f.Opt("default_outgoing", &x.DefaultOutgoing)
	case KindVerify:
		x := &Verify{Assertions: []Assertion{}}
		r.Verify = x
		f.List("assertions", true, func(path string, raw json.RawMessage) error {
			var a Assertion
			if err := a.DecodeField(path, raw); err != nil {
				return err
			}
			x.Assertions = append(x.Assertions, a)
			return nil
		})
	case KindPipeline:
		x := &Pipeline{Steps: []Step{}}
		r.Pipeline = x
		f.List("steps", true, func(path string, raw json.RawMessage) error {
			var s Step
			if err := s.DecodeField(path, raw); err != nil {
				return err
			}
			x.Steps = append(x.Steps, s)
			return nil
		})
		f.Opt("env", textMapField(&x.Env))
		f.Opt("max_concurrency", &x.MaxConcurrency)
	case KindBuild:
		x := &Build{}
		r.Build = x
		f.Req("source", &x.Source)
		f.Req("run", TextField(&x.Run))
		f.Req("output", TextField(&x.Output))
		f.Opt("cwd", &x.Cwd)
		f.Opt("env", textMapField(&x.Env))
	default:
		return false
	}
	return true
}

func (k *SSHKeys) DecodeField(path string, raw json.RawMessage) error {
	f := NewFields(path, raw)
	f.Opt("copy_from", &k.CopyFrom)
	if f.Has("keys") {
		k.Keys = []string{}
		f.Opt("keys", &k.Keys)
	}
	return f.Done()
}

func (s *Sudo) DecodeField(path string, raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	switch {
	case string(raw) == "false":
		*s = Sudo{Remove: true}
		return nil
	case string(raw) == "true":
		return &canon.PathError{Path: path, Msg: "true grants nothing: write 'nopasswd' or 'password' to grant sudo, or false to remove the grant"}
	case len(raw) > 0 && raw[0] == '"':
		var mode string
		if err := json.Unmarshal(raw, &mode); err != nil {
			return &canon.PathError{Path: path, Msg: err.Error()}
		}
		*s = Sudo{Mode: mode}
		return nil
	case len(raw) > 0 && raw[0] == '{':
		f := NewFields(path, raw)
		f.Req("mode", &s.Mode)
		s.Commands = []string{}
		f.Req("commands", &s.Commands)
		return f.Done()
	}
	return &canon.PathError{Path: path, Msg: `want "nopasswd", "password", false or {"mode": ..., "commands": [...]}`}
}

func (s Sudo) MarshalJSON() ([]byte, error) {
	switch {
	case s.Remove:
		return []byte("false"), nil
	case s.Commands == nil:
		return json.Marshal(s.Mode)
	}
	return json.Marshal(struct {
		Mode     string   `json:"mode"`
		Commands []string `json:"commands"`
	}{s.Mode, s.Commands})
}

func (a *DatabaseAuth) DecodeField(path string, raw json.RawMessage) error {
	f := NewFields(path, raw)
	textList(f, "hosts", true, &a.Hosts)
	f.Opt("method", &a.Method)
	return f.Done()
}

func (a *AllowRule) DecodeField(path string, raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		if err := json.Unmarshal(raw, &a.Profile); err != nil {
			return &canon.PathError{Path: path, Msg: err.Error()}
		}
		return nil
	}
	if len(raw) == 0 || raw[0] != '{' {
		return &canon.PathError{Path: path, Msg: `want a profile name or {"port": N, "proto": ...}`}
	}
	f := NewFields(path, raw)
	f.Req("port", &a.Port)
	f.Opt("proto", &a.Proto)
	if f.err == nil && a.Port == 0 {
		f.Fail("port", errors.New("a port is 1 to 65535"))
	}
	return f.Done()
}

func (a AllowRule) MarshalJSON() ([]byte, error) {
	if a.Port == 0 {
		return json.Marshal(a.Profile)
	}
	return json.Marshal(struct {
		Port  int    `json:"port"`
		Proto string `json:"proto,omitempty"`
	}{a.Port, a.Proto})
}

func (a *Assertion) DecodeField(path string, raw json.RawMessage) error {
	f := NewFields(path, raw)
	f.Req("type", &a.Type)
	switch {
	case f.err != nil:
	case a.Type == AssertPathExists:
		f.Req("path", &a.Path)
		f.Opt("file_type", &a.FileType)
		f.Opt("mode", &a.Mode)
		f.Opt("owner", &a.Owner)
		f.Opt("not_empty", &a.NotEmpty)
	case a.Type == AssertCommand:
		a.Run = new(Text)
		f.Req("run", TextField(a.Run))
		f.Opt("expect", &a.Expect)
	default:
		f.Fail("type", fmt.Errorf("unknown assertion type %q (want path_exists or command)", a.Type))
	}
	return f.Done()
}

func (s *Step) DecodeField(path string, raw json.RawMessage) error {
	f := NewFields(path, raw)
	f.Req("id", &s.ID)
	f.Req("run", TextField(&s.Run))
	f.Opt("name", &s.Name)
	f.Opt("cwd", &s.Cwd)
	f.Opt("env", textMapField(&s.Env))
	f.Opt("depends_on", &s.DependsOn)
	return f.Done()
}

func (s *Source) DecodeField(path string, raw json.RawMessage) error {
	f := NewFields(path, raw)
	f.Req("type", &s.Type)
	if f.err == nil && s.Type != "remote" {
		f.Fail("type", fmt.Errorf("unknown source type %q (want remote)", s.Type))
	}
	f.Req("url", TextField(&s.URL))
	if f.Has("extract") {
		s.Extract = &Extract{}
		f.Opt("extract", s.Extract)
	}
	optText(f, "auth", &s.Auth)
	if f.Has("verify") {
		s.Verify = &Verification{}
		f.Opt("verify", s.Verify)
	}
	f.Opt("blake3", &s.Blake3)
	return f.Done()
}

func (e *Extract) DecodeField(path string, raw json.RawMessage) error {
	f := NewFields(path, raw)
	f.Req("type", &e.Type)
	switch {
	case f.err != nil:
	case e.Type == ExtractNone, e.Type == ExtractTarGZ, e.Type == ExtractTarXZ:
	default:
		f.Fail("type", fmt.Errorf("unknown extract type %q (want none, tar.xz or tar.gz)", e.Type))
	}
	f.Opt("strip_components", &e.StripComponents)
	return f.Done()
}

func (v *Verification) DecodeField(path string, raw json.RawMessage) error {
	f := NewFields(path, raw)
	f.Req("scheme", &v.Scheme)
	f.Req("public_key", &v.PublicKey)
	optText(f, "signature_url", &v.SignatureURL)
	return f.Done()
}

func (v *Var) DecodeField(path string, raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		v.Text = new(Text)
		return textAt{v.Text}.DecodeField(path, raw)
	}
	if len(raw) > 0 && raw[0] == '{' {
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) == nil {
			_, env := obj["$env"]
			_, text := obj["$text"]
			if env || text {
				v.Text = new(Text)
				return textAt{v.Text}.DecodeField(path, raw)
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
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
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

// varMapAt decodes a template's vars.
type varMapAt struct{ m *map[string]Var }

func (x varMapAt) DecodeField(path string, raw json.RawMessage) error {
	f := NewFields(path, raw)
	out := map[string]Var{}
	for _, k := range f.Keys() {
		var v Var
		f.Req(k, &v)
		out[k] = v
	}
	if err := f.Done(); err != nil {
		return err
	}
	*x.m = out
	return nil
}

func (d *Deploy) DecodeField(path string, raw json.RawMessage) error {
	f := NewFields(path, raw)
	f.Req("path", &d.Path)
	f.Opt("build", &d.Build)
	d.Artifacts = []string{}
	f.Req("artifacts", &d.Artifacts)
	f.Opt("shared", &d.Shared)
	f.Opt("prepare", &d.Prepare)
	f.Opt("service", &d.Service)
	f.Opt("releases", &d.Releases)
	if f.Has("health") {
		d.Health = &Health{}
		f.Opt("health", d.Health)
	}
	return f.Done()
}

func (h *Health) DecodeField(path string, raw json.RawMessage) error {
	f := NewFields(path, raw)
	f.Req("domain", TextField(&h.Domain))
	f.Opt("path", &h.Path)
	f.Opt("attempts", &h.Attempts)
	f.Opt("interval_ms", &h.IntervalMS)
	return f.Done()
}

// UnmarshalJSON decodes strictly; the DecodeField methods do the work.
func (d *Deploy) UnmarshalJSON(data []byte) error       { return d.DecodeField("", data) }
func (h *Health) UnmarshalJSON(data []byte) error       { return h.DecodeField("", data) }
func (s *Source) UnmarshalJSON(data []byte) error       { return s.DecodeField("", data) }
func (e *Extract) UnmarshalJSON(data []byte) error      { return e.DecodeField("", data) }
func (v *Verification) UnmarshalJSON(data []byte) error { return v.DecodeField("", data) }
func (a *Assertion) UnmarshalJSON(data []byte) error    { return a.DecodeField("", data) }
func (s *Step) UnmarshalJSON(data []byte) error         { return s.DecodeField("", data) }
func (a *AllowRule) UnmarshalJSON(data []byte) error    { return a.DecodeField("", data) }
func (a *DatabaseAuth) UnmarshalJSON(data []byte) error { return a.DecodeField("", data) }
func (s *Sudo) UnmarshalJSON(data []byte) error         { return s.DecodeField("", data) }
func (k *SSHKeys) UnmarshalJSON(data []byte) error      { return k.DecodeField("", data) }
func (v *Var) UnmarshalJSON(data []byte) error          { return v.DecodeField("", data) }

// marshalKind writes the flat object of a kind other than file, directory,
// link and script, with required lists and maps never null.
func (r Resource) marshalKind() ([]byte, bool, error) {
	var v any
	switch r.Type {
	case KindPackage:
		x := *r.Package
		if x.From == nil {
			x.From = map[string]string{}
		}
		v = struct {
			Common
			*Package
		}{r.Common, &x}
	case KindAptRepo:
		v = struct {
			Common
			*AptRepo
		}{r.Common, r.AptRepo}
	case KindInstaller:
		v = struct {
			Common
			*Installer
		}{r.Common, r.Installer}
	case KindUser:
		v = struct {
			Common
			*User
		}{r.Common, r.User}
	case KindService:
		v = struct {
			Common
			*Service
		}{r.Common, r.Service}
	case KindDatabase:
		x := *r.Database
		if x.Auth != nil && x.Auth.Hosts == nil {
			a := *x.Auth
			a.Hosts = []Text{}
			x.Auth = &a
		}
		v = struct {
			Common
			*Database
		}{r.Common, &x}
	case KindSwap:
		v = struct {
			Common
			*Swap
		}{r.Common, r.Swap}
	case KindFirewall:
		x := *r.Firewall
		if x.Allow == nil {
			x.Allow = []AllowRule{}
		}
		v = struct {
			Common
			*Firewall
		}{r.Common, &x}
	case KindVerify:
		x := *r.Verify
		if x.Assertions == nil {
			x.Assertions = []Assertion{}
		}
		v = struct {
			Common
			*Verify
		}{r.Common, &x}
	case KindPipeline:
		x := *r.Pipeline
		if x.Steps == nil {
			x.Steps = []Step{}
		}
		v = struct {
			Common
			*Pipeline
		}{r.Common, &x}
	case KindBuild:
		v = struct {
			Common
			*Build
		}{r.Common, r.Build}
	default:
		return nil, false, nil
	}
	out, err := json.Marshal(v)
	return out, true, err
}

// MarshalJSON writes the deploy block with its artifacts never null.
func (d Deploy) MarshalJSON() ([]byte, error) {
	type plain Deploy
	p := plain(d)
	if p.Artifacts == nil {
		p.Artifacts = []string{}
	}
	return json.Marshal(p)
}
