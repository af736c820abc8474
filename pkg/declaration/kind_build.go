package declaration

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	"github.com/zap-go/zap/internal/strict"
)

// Build is a tool built from a pinned source archive.
type Build struct {
	// The archive the build starts from, fetched and pinned.
	Source Source `json:"source"`
	// The build command, run unprivileged in the extracted source.
	Run Text `json:"run"`
	// A path that exists exactly when the build is installed.
	Output Text `json:"output"`
	// Absolute, or relative to the extracted source (the default).
	Cwd string `json:"cwd,omitempty" zap:"instead=build_cwd"`
	// Extra environment for run. Values take references.
	Env map[string]Text `json:"env,omitempty" zap:"instead=varname"`
}

// Source is where a build's source archive comes from.
type Source struct {
	// Where the archive comes from: 'remote' (a URL) is the only source.
	Type string `json:"type" zap:"instead=source_type,enum=remote,refuse=a source type"`
	// Takes a reference.
	URL Text `json:"url"`
	// How the fetched bytes are unpacked before the build runs.
	Extract *Extract `json:"extract,omitempty"`
	// A bearer token for a private byte host, typically a reference.
	Auth *Text `json:"auth,omitempty"`
	// A minisign signature the archive must carry before it is cached or
	// pinned.
	Verify *Verification `json:"verify,omitempty"`
	// A vendored pin; without it the pin is tracked in zap.lock.
	Blake3 string `json:"blake3,omitempty" zap:"instead=pin"`
}

// Verification is a minisign check of a build source before it is cached or
// pinned.
type Verification struct {
	// The signature scheme: 'minisign' is the only one.
	Scheme string `json:"scheme" zap:"instead=minisign,enum=minisign"`
	// The key's 56 base64 characters, beginning RW.
	PublicKey string `json:"public_key" zap:"instead=public_key"`
	// Default: the source URL with .minisig added to its path. Takes a
	// reference.
	SignatureURL *Text `json:"signature_url,omitempty"`
}

var minisignPattern = newPattern(`^RW[A-Za-z0-9+/]{54}$`)

func (x *Build) CheckForm() *Finding {
	if m := x.Source.check(); m != nil {
		return m
	}
	if err := checkCommand(x.Run); err != nil {
		return fieldf("run", "%v", err)
	}
	if err := checkPath(x.Output); err != nil {
		return fieldf("output", "%v", err)
	}
	if x.Cwd != "" {
		if err := checkName(x.Cwd); err != nil {
			return fieldf("cwd", "%v", err)
		}
		if strings.HasPrefix(x.Cwd, "~") || strings.HasPrefix(x.Cwd, "$HOME") {
			return fieldf("cwd", "is taken as written: an absolute path, or one relative to the extracted source (no ~)")
		}
	}
	return checkEnv(x.Env, "env")
}

// check checks a build's source, naming its fields source.*.
func (src *Source) check() *fieldMsg {
	if err := checkURL(src.URL, true); err != nil {
		return fieldf("source.url", "%v", err)
	}
	if m := checkExtract(src.Extract); m != nil {
		return fieldf("source."+m.field, "%s", m.msg)
	}
	if src.Auth != nil && src.Auth.IsZero() {
		return fieldf("source.auth", "is blank")
	}
	if v := src.Verify; v != nil {
		if v.Scheme != "minisign" {
			return fieldf("source.verify.scheme", "%q is not a scheme (want minisign)", v.Scheme)
		}
		if !minisignPattern.MatchString(v.PublicKey) {
			return fieldf("source.verify.public_key", "is not a minisign public key: the 56 base64 characters beginning RW on the key line of a .pub file")
		}
		if v.SignatureURL != nil {
			if err := checkURL(*v.SignatureURL, true); err != nil {
				return fieldf("source.verify.signature_url", "%v", err)
			}
		}
	}
	if err := checkBlake3(src.Blake3); err != nil {
		return fieldf("source.blake3", "%v", err)
	}
	return nil
}

func (x *Build) Clone() Body {
	c := *x
	src := &c.Source
	src.Extract = src.Extract.clone()
	src.Auth = clonePtr(src.Auth)
	if src.Verify = clonePtr(x.Source.Verify); src.Verify != nil {
		src.Verify.SignatureURL = clonePtr(x.Source.Verify.SignatureURL)
	}
	c.Env = maps.Clone(x.Env)
	return &c
}

func (x *Build) Texts(out map[string]Text) {
	out["source.url"] = x.Source.URL
	if x.Source.Auth != nil {
		out["source.auth"] = *x.Source.Auth
	}
	if v := x.Source.Verify; v != nil && v.SignatureURL != nil {
		out["source.verify.signature_url"] = *v.SignatureURL
	}
	out["run"] = x.Run
	out["output"] = x.Output
	for k, v := range x.Env {
		out["env."+k] = v
	}
}

func (s *Source) DecodeField(path string, raw json.RawMessage) error {
	f := strict.NewFields(path, raw)
	f.Req("type", &s.Type)
	if f.Err() == nil && s.Type != "remote" {
		f.Fail("type", fmt.Errorf("unknown source type %q (want remote)", s.Type))
	}
	f.Req("url", &s.URL)
	strict.OptNew(f, "extract", &s.Extract)
	strict.OptNew(f, "auth", &s.Auth)
	strict.OptNew(f, "verify", &s.Verify)
	f.Opt("blake3", &s.Blake3)
	return f.Done()
}

func (v *Verification) DecodeField(path string, raw json.RawMessage) error {
	return strict.DecodeTagged(path, raw, v)
}

// UnmarshalJSON decodes strictly; DecodeField does the work.
func (s *Source) UnmarshalJSON(data []byte) error { return s.DecodeField("", data) }

// UnmarshalJSON decodes strictly; DecodeField does the work.
func (v *Verification) UnmarshalJSON(data []byte) error { return v.DecodeField("", data) }

func (x *Build) checkState() *fieldMsg { return statePaths(statePath{"output", x.Output}) }

func (x *Build) manages(string) []managed { return []managed{ownPath("output", x.Output)} }

func (x *Build) credential() *Text { return x.Source.Auth }

func (x *Build) credentialField() string { return "source.auth" }

func (x *Build) dropCredential() { x.Source.Auth = nil }
